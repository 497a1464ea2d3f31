// One Python str() for every place cloud-init writes a config value: booleans as True/False, null as None.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pyStr } from '../../src/util/python-str';

test("pyStr is Python's str() of a YAML value: True, False, None, and numbers and strings as they are", () => {
  assert.deepEqual([true, false, null, undefined, 0, 42, 'x', ''].map(pyStr), [
    'True',
    'False',
    'None',
    'None',
    '0',
    '42',
    'x',
    '',
  ]);
});
