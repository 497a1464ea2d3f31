// cloudbase-init's log file from log_file and log_dir, as oslo.log's _get_log_file_path decides it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { logFilePath } from '../../src/config/log-file-path';

test('log_file alone is the path; with log_dir it goes under it; log_dir alone gets cloudbase-init.log; neither: none', () => {
  assert.equal(logFilePath('C:\\logs\\ci.log', undefined), 'C:\\logs\\ci.log');
  assert.equal(
    logFilePath('cloudbase-init.log', 'C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\log\\'),
    'C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\log\\cloudbase-init.log',
  );
  assert.equal(logFilePath(undefined, 'C:\\log'), 'C:\\log\\cloudbase-init.log');
  assert.equal(logFilePath('D:\\elsewhere.log', 'C:\\log'), 'D:\\elsewhere.log', 'an absolute log_file is not joined');
  assert.equal(logFilePath(undefined, undefined), undefined);
});
