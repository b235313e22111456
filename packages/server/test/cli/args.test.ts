import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { buildVariables, parseAssignment, parseCliArguments } from '../../src/cli/args.js';
import type { ApiArguments } from '../../src/cli/args.js';

const none: ApiArguments = {
  query: null,
  vars: null,
  config: null,
  endpoint: null,
  getCurl: false,
  dumpRequests: false,
  trace: false,
  insecureSkipVerify: false,
  userAgentTelemetry: null,
  explainCost: false,
  assignments: [],
};
const api = (args: Partial<ApiArguments>) => ok({ kind: 'api', args: { ...none, ...args } });
const graphQLName = fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,10}$/);

describe('parseCliArguments', () => {
  it.each([
    { ref: 'spec §1 (multi-line query from stdin: no -query)', argv: ['api'], expected: api({}) },
    { ref: 'flags (-query)', argv: ['api', '-query', '{ a }'], expected: api({ query: '{ a }' }) },
    { ref: 'Go flag syntax (-flag=value)', argv: ['api', '-query={ a }'], expected: api({ query: '{ a }' }) },
    { ref: 'Go flag syntax (--flag value)', argv: ['api', '--query', '{ a }'], expected: api({ query: '{ a }' }) },
    { ref: 'Go flag syntax (a value may start with -)', argv: ['api', '-query', '-x'], expected: api({ query: '-x' }) },
    { ref: 'Go flag syntax (last wins)', argv: ['api', '-query', 'a', '-query', 'b'], expected: api({ query: 'b' }) },
    { ref: 'flags (-vars)', argv: ['api', '-vars', '{"a":1}'], expected: api({ vars: '{"a":1}' }) },
    { ref: 'flags (-config)', argv: ['api', '-config', '/etc/x.json'], expected: api({ config: '/etc/x.json' }) },
    { ref: 'spec §1 (-get-curl)', argv: ['api', '-get-curl'], expected: api({ getCurl: true }) },
    { ref: 'Go flag syntax (bool=false)', argv: ['api', '-get-curl', '-get-curl=false'], expected: api({ getCurl: false }) },
    { ref: 'Go flag syntax (bool value)', argv: ['api', '-get-curl=maybe'], expected: err({ code: 'invalid_boolean', flag: 'get-curl', value: 'maybe' }) },
    { ref: 'flags (name=value)', argv: ['api', 'q=a=b', '-query', '{ a }', 'n='], expected: api({ query: '{ a }', assignments: [['q', 'a=b'], ['n', '']] }) },
    { ref: 'Go flag syntax (-- ends flags)', argv: ['api', '--', '_x=-y'], expected: api({ assignments: [['_x', '-y']] }) },
    { ref: 'flags (names are GraphQL names)', argv: ['api', '1x=y'], expected: err({ code: 'invalid_assignment', argument: '1x=y' }) },
    { ref: 'flags (positional must be name=value)', argv: ['api', 'query'], expected: err({ code: 'invalid_assignment', argument: 'query' }) },
    { ref: 'Go flag syntax (after --, flags are arguments)', argv: ['api', '--', '-query'], expected: err({ code: 'invalid_assignment', argument: '-query' }) },
    { ref: 'Go flag syntax (unknown flag)', argv: ['api', '-qurey', 'x'], expected: err({ code: 'unknown_flag', flag: 'qurey' }) },
    { ref: 'Go flag syntax (missing value)', argv: ['api', '-vars'], expected: err({ code: 'missing_flag_value', flag: 'vars' }) },
    { ref: 'spec §1 (the subcommand is api)', argv: ['apix'], expected: err({ code: 'unknown_command', command: 'apix' }) },
    { ref: 'usage (nothing)', argv: [], expected: ok({ kind: 'help' }) },
    { ref: 'usage (help)', argv: ['help'], expected: ok({ kind: 'help' }) },
    { ref: 'usage (-h after api)', argv: ['api', '-query', 'x', '-h'], expected: ok({ kind: 'help' }) },
    { ref: 'src api (-dump-requests)', argv: ['api', '-dump-requests'], expected: api({ dumpRequests: true }) },
    { ref: 'src api (-trace)', argv: ['api', '--trace'], expected: api({ trace: true }) },
    { ref: 'src api (-insecure-skip-verify)', argv: ['api', '-insecure-skip-verify=true'], expected: api({ insecureSkipVerify: true }) },
    { ref: 'src api (-user-agent-telemetry=false)', argv: ['api', '-user-agent-telemetry=false'], expected: api({ userAgentTelemetry: false }) },
    { ref: 'src api (-endpoint after api)', argv: ['api', '-endpoint', 'http://h'], expected: api({ endpoint: 'http://h' }) },
    { ref: 'src (global -config)', argv: ['-config=/etc/x.json', 'api'], expected: api({ config: '/etc/x.json' }) },
    { ref: 'src (global -endpoint, two dashes, separate value)', argv: ['--endpoint', 'http://h', 'api'], expected: api({ endpoint: 'http://h' }) },
    { ref: 'src (a flag after api wins over the global one)', argv: ['-config', 'a', 'api', '-config', 'b'], expected: api({ config: 'b' }) },
    { ref: 'src (-- before the subcommand)', argv: ['-endpoint=x', '--', 'api'], expected: api({ endpoint: 'x' }) },
    { ref: 'src (global flags only: usage)', argv: ['-config', 'a'], expected: ok({ kind: 'help' }) },
    { ref: 'src (unknown global flag)', argv: ['-query', 'x', 'api'], expected: err({ code: 'unknown_flag', flag: 'query' }) },
    { ref: 'src (global flag without a value)', argv: ['-endpoint'], expected: err({ code: 'missing_flag_value', flag: 'endpoint' }) },
    { ref: '--version', argv: ['--version'], expected: ok({ kind: 'version' }) },
    { ref: '-version, before anything else', argv: ['-version', 'api', '-qurey'], expected: ok({ kind: 'version' }) },
    { ref: 'usage (--help before the subcommand)', argv: ['--help', 'api'], expected: ok({ kind: 'help' }) },
  ])('should parse $ref', ({ argv, expected }) => {
    expect(parseCliArguments(argv)).toStrictEqual(expected);
  });

  test.prop([fc.array(fc.string())])('should never throw', (argv) => {
    expect(() => parseCliArguments(argv)).not.toThrow();
    expect(() => parseCliArguments(['api', ...argv])).not.toThrow();
  });

  test.prop([fc.constantFrom('query', 'vars', 'config', 'endpoint'), fc.string(), fc.constantFrom('-', '--')])(
    'should read -flag=value and -flag value alike, for any value',
    (flag, value, dashes) => {
      expect(parseCliArguments(['api', `${dashes}${flag}=${value}`])).toStrictEqual(parseCliArguments(['api', `-${flag}`, value]));
      expect(parseCliArguments(['api', `-${flag}`, value])).toStrictEqual(api({ [flag]: value }));
    },
  );

  test.prop([fc.array(fc.tuple(graphQLName, fc.string()), { maxLength: 5 })])('should keep name=value arguments in order', (pairs) => {
    expect(parseCliArguments(['api', '--', ...pairs.map(([n, v]) => `${n}=${v}`)])).toStrictEqual(api({ assignments: pairs }));
  });
});

describe('parseAssignment', () => {
  test.prop([graphQLName, fc.string()])('should split at the first = (round-trip)', (name, value) => {
    expect(parseAssignment(`${name}=${value}`)).toStrictEqual([name, value]);
  });
});

describe('buildVariables', () => {
  it.each([
    { ref: 'flags (no variables)', vars: null, pairs: [], expected: ok({}) },
    { ref: 'flags (-vars object)', vars: '{"first": 3, "q": "x"}', pairs: [], expected: ok({ first: 3, q: 'x' }) },
    { ref: 'flags (name=value are strings and win)', vars: '{"q": 1}', pairs: [['q', '2'], ['r', 'x']] as const, expected: ok({ q: '2', r: 'x' }) },
    { ref: 'flags (JSON)', vars: '{', pairs: [], expected: err({ code: 'invalid_vars_json' }) },
    { ref: 'spec §2.1 (variables is an object)', vars: '[1]', pairs: [], expected: err({ code: 'vars_not_object' }) },
    { ref: 'spec §2.1 (variables is an object)', vars: 'null', pairs: [], expected: err({ code: 'vars_not_object' }) },
  ])('should build $ref', ({ vars, pairs, expected }) => {
    expect(buildVariables(vars, pairs)).toStrictEqual(expected);
  });

  it('should keep __proto__ as an ordinary variable', () => {
    const vars = buildVariables('{"__proto__": {"x": 1}}', [['__proto__', 'y']])._unsafeUnwrap();
    expect(Object.getPrototypeOf(vars)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(vars))).toStrictEqual(JSON.parse('{"__proto__": "y"}'));
  });

  test.prop([fc.json()])('should accept exactly the JSON objects and keep them as they are', (text) => {
    const parsed: unknown = JSON.parse(text);
    const result = buildVariables(text, []);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) expect(JSON.stringify(result._unsafeUnwrap())).toBe(JSON.stringify(parsed));
    else expect(result).toStrictEqual(err({ code: 'vars_not_object' }));
  });
});
