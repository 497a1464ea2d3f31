// The jinja subset: fixed expectations, errors naming lines, and parity with real Jinja2 from the Debian rootfs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { TemplateError } from '../../src/userdata/errors';
import { jinjaVariables } from '../../src/userdata/jinja-context';
import { missingJinjaWarning, renderJinja } from '../../src/userdata/jinja-render';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';

const CTX = {
  v1: {
    local_hostname: 'host-1',
    region: 'us-east-2',
    availability_zone: 'us-east-2a',
    public_ssh_keys: ['k1', 'k2'],
    instance_id: 'i-1',
  },
  ds: { meta_data: { tags: { role: 'web', env: 'prod' }, list: [3, 1, 2], name: 'Mixed Case' } },
  n: 7,
  words: 'a b  c',
  empty: [],
  nothing: null,
};

/** Templates whose output is compared with Jinja2 (trim_blocks=True, as cloud-init renders). */
const PARITY: string[] = [
  'hello {{ v1.local_hostname }}!',
  '{{ v1["region"] }} {{ v1.public_ssh_keys[1] }} {{ v1.public_ssh_keys[-1] }}',
  '{% if n > 5 %}big{% elif n > 2 %}mid{% else %}small{% endif %}',
  '{% for k in v1.public_ssh_keys %}\n- {{ loop.index }}/{{ loop.length }} {{ k }}{% if not loop.last %},{% endif %}\n{% endfor %}\ndone\n',
  '{% for k, v in ds.meta_data.tags | dictsort %}{{ k }}={{ v }};{% endfor %}',
  '{% for x in empty %}x{% else %}none{% endfor %}',
  '{%- set a = 1 -%}\n  {{- a + 2 }}  \n  {%- set b = "x" ~ a %}\n{{ b }}',
  '{# comment #}\nline\n{# another\nmultiline #}\nend',
  '{{ ds.meta_data.name | lower }} {{ ds.meta_data.name | upper }} {{ ds.meta_data.name | replace("Case", "c") }} {{ "  pad " | trim }}',
  '{{ ds.meta_data.list | sort | join(",") }} {{ ds.meta_data.list | length }} {{ ds.meta_data.list | first }} {{ ds.meta_data.list | last }} {{ ds.meta_data.list | max }}',
  '{{ missing | default("dflt") }} {{ nothing | default("x") }} {{ "" | default("y", true) }}',
  // Debian 13's deb822 sources template: an undefined fallback is passed on to the next default.
  '{{ security_key | default(primary_key, true) | default("/usr/share/keyrings/k.gpg", true) }}',
  'Suites: {{ n }}{% if n in (1, 2) %}/updates{% else %}-security{% endif +%}\nComponents: main\n{% if n %}\nx\n{%+ endif %}\n',
  '{{ "42" | int + 1 }} {{ "3.5" | float }} {{ 7 // 2 }} {{ 7 % 3 }} {{ 2 * 3 - 1 }} {{ 7 / 2 }}',
  '{{ v1.region.startswith("us") }} {{ "web" in ds.meta_data.tags.values() | list }} {{ "role" in ds.meta_data.tags }} {{ 3 not in ds.meta_data.list }}',
  '{{ nothing is none }} {{ n is number }} {{ missing is defined }} {{ n is odd }} {{ v1 is mapping }}',
  '{{ words.split() }} {{ words.split(" ") | length }} {{ [1, "a", none, true] }}',
  '{{ ds.meta_data.tags | tojson }} {{ [1, {"b": "<&>", "a": none}] | tojson }} {{ v1.public_ssh_keys | tojson(2) }}',
  '{{ "a" if n == 7 else "b" }} {{ (n > 1) and (n < 10) }} {{ not empty }}',
  '{% set items = [] %}{% for i in range(3) %}{{ i }}{% endfor %}',
  'x\n  {%- if true %}\nkept\n  {% endif %}\nafter\n',
  '{{ "line1\nline2" | indent(2) }}',
  'trailing newline dropped\n',
  'a\n{% if missing_flag is defined %}\nb\n{% endif %}\n',
  'a\n{% if n %}\nb\n{% endif %}\nc\n',
  'a {% raw %}{{ not rendered }} {% if %}{% endraw %} b\n{% raw -%}\n  x {{ y }}\n{%- endraw %}\nz',
];

test('fixed renders', () => {
  assert.equal(renderJinja('{{ v1.local_hostname }}', CTX), 'host-1');
  assert.equal(renderJinja('{% for k in [1,2] %}{{ k }}{% endfor %}', CTX), '12');
  assert.equal(renderJinja('{{ ds.meta_data.tags.role }}-{{ ds["meta_data"]["tags"]["env"] }}', CTX), 'web-prod');
  assert.equal(renderJinja('{{ true }} {{ none }} {{ 1.5 }}', CTX), 'True None 1.5');
  // The source's last newline goes before parsing: a block that closes the template keeps the line before it whole.
  assert.equal(renderJinja('a\n{% if n > 100 %}\nb\n{% endif %}\n', CTX), 'a\n');
});

test("an undefined name prints as cloud-init's marker with its last name; using it further is an error naming the line", () => {
  assert.equal(
    renderJinja('a {{ v1.nope }} {{ nope }} {{ ds.meta_data["gone"] }}', CTX),
    'a CI_MISSING_JINJA_VAR/nope CI_MISSING_JINJA_VAR/nope CI_MISSING_JINJA_VAR/gone',
  );
  assert.equal(
    missingJinjaWarning('part-001', 'x CI_MISSING_JINJA_VAR/a.b\nCI_MISSING_JINJA_VAR/c'),
    "Could not render jinja template variables in file 'part-001': 'a.b', 'c'",
  );
  assert.equal(missingJinjaWarning('part-001', 'nothing missing'), undefined);
});

test('undefined names used further and syntax errors name the line', () => {
  const err = (src: string) => {
    try {
      renderJinja(src, CTX);
    } catch (e) {
      assert.ok(e instanceof TemplateError);
      return `${e.line}: ${e.reason}`;
    }
    assert.fail(`no error for ${src}`);
  };
  assert.equal(err('a\nb\n{{ v1.nope.deeper }}'), "3: 'v1.nope' is undefined");
  assert.equal(err('{{ nope.deeper }}'), "1: 'nope' is undefined");
  assert.equal(
    err('x\n{% for a in nothing_here %}{% endfor %}'),
    "2: 'nothing_here' is undefined (cannot loop over it)",
  );
  assert.equal(err('a\n\n{% if x %}\n'), "3: 'if' opened here is never closed with 'endif'");
  assert.equal(err('{% endif %}'), "1: unexpected 'endif' (no matching opening tag)");
  assert.equal(err('1\n{{ n | nosuch }}'), "2: unknown filter 'nosuch'");
  assert.equal(err('{{ 1 +  }}'), '1: unexpected end of expression');
  assert.equal(err('\n{{ "a" - 1 }}'), '2: unsupported operand types for -: str and int');
  assert.equal(
    err('{% macro m() %}{% endmacro %}'),
    "1: unknown tag 'macro' (kiln renders if/elif/else, for, set, do)",
  );
  assert.equal(err('a\n{{ x'), "2: unclosed '{{' (no '}}' found)");
});

test('instance-data keys get underscore aliases and v1 keys are top-level', () => {
  const vars = jinjaVariables({ v1: { 'local-hostname': 'h' }, ds: { meta_data: { 'instance-id': 'i-9' } } });
  assert.equal(
    renderJinja(
      '{{ v1.local_hostname }} {{ local_hostname }} {{ ds.meta_data.instance_id }} {{ ds.meta_data["instance-id"] }}',
      vars,
    ),
    'h h i-9 i-9',
  );
});

test('parity with Jinja2 (python3-jinja2 in the Debian rootfs, trim_blocks=True)', (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, chroot and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = ensureDebianRootfs('trixie');
  const script = [
    'import sys, json, jinja2',
    'req = json.load(sys.stdin)',
    'out = []',
    'for src in req["templates"]:',
    '    out.append(jinja2.Template(src, trim_blocks=True, undefined=jinja2.StrictUndefined).render(**req["ctx"]))',
    'json.dump(out, sys.stdout)',
  ].join('\n');
  const r = spawnSync('unshare', ['--mount', '--pid', '--fork', 'chroot', root, 'python3', '-B', '-c', script], {
    input: JSON.stringify({ templates: PARITY, ctx: CTX }),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const expected = JSON.parse(r.stdout) as string[];
  for (const [i, src] of PARITY.entries())
    assert.equal(renderJinja(src, CTX), expected[i], `template ${i}: ${JSON.stringify(src)}`);
});
