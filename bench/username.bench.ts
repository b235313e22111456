/**
 * normalizeUsername (spec §5.5) throughput against a regex-chain implementation of the same rules,
 * written the way such normalizers usually are (Sourcegraph's `NormalizeUsername` is a chain of
 * `ReplaceAllString` calls), measured in the same run on the same corpora. Both produce identical
 * outputs on every input (checked before timing).
 */
import { normalizeUsername } from '../src/core/username.js';
import { measure, printTable } from './harness.js';
import type { Measurement } from './harness.js';

/** The baseline: the rules of §5.5 as a regex chain, with the same 255-character cut. */
function regexChain(name: string): string | null {
  const first = name.indexOf('@');
  let s = first !== -1 && first === name.lastIndexOf('@') ? name.slice(0, first) : name;
  s = s.replace(/[^A-Za-z0-9._-]/gu, '-');
  s = s.replace(/[.-]{2,}/g, (run) => (/^\.+$/.test(run) ? '.' : '-'));
  s = s.replace(/^[.-]/, '').replace(/\.$/, '');
  if (s.length > 255) s = s.slice(0, 255).replace(/\.$/, '');
  return s === '' ? null : s;
}

function gatehouse(name: string): string | null {
  const result = normalizeUsername(name);
  return result.isOk() ? result.value : null;
}

const KIB64 = 64 * 1024;
const corpora: ReadonlyArray<{ readonly title: string; readonly inputs: readonly string[] }> = [
  {
    title: 'emails and logins (20 typical names)',
    inputs: [
      'alice@example.com', 'bob.smith@corp.example.org', 'first_last+ci@mail.example', 'carol', 'dave-ops',
      'erin.o-neil', 'frank_99', 'Grace.Hopper@navy.example', 'heidi..x@example.com', 'ivan@@example.com',
      'judy@example.com', 'mallory.-test', '-leading', 'trailing.', 'a@b@c', 'oscar_the_grouch',
      'peggy@sub.domain.example', 'Trent', 'victor.2024', 'walter@example.co.uk',
    ],
  },
  {
    title: 'unicode display names (10 names)',
    inputs: [
      'José Álvarez', 'Zoë Saldaña', '张伟', 'Ａｌｉｃｅ', '🚀 rocket 🚀', 'Łukasz Żółć', 'Δημήτρης',
      'naïve café', 'Søren Kierkegaard', 'محمد',
    ],
  },
  {
    title: 'hostile 1 KiB strings (.-.- runs, @ runs, emoji runs, a.a. runs)',
    inputs: ['.-'.repeat(512), '@'.repeat(1024), '🚀'.repeat(512), 'a.'.repeat(512), `${'..'.repeat(511)}ab`],
  },
  {
    title: 'hostile 64 KiB strings (.-.- run, @ run, emoji run, a@ run, mixed)',
    inputs: [
      '.-'.repeat(KIB64 / 2),
      '@'.repeat(KIB64),
      '🚀'.repeat(KIB64 / 2),
      'a@'.repeat(KIB64 / 2),
      ' .é'.repeat(KIB64 / 3),
    ],
  },
  {
    title: '64 KiB valid-looking strings (one long name, one long email)',
    inputs: ['a'.repeat(KIB64), `${'b'.repeat(KIB64 - 12)}@example.com`],
  },
];

function measureCorpus(name: string, fn: (s: string) => string | null, inputs: readonly string[]): Measurement {
  for (const input of inputs) {
    if (fn(input) !== regexChain(input)) return { name, nsPerOp: `wrong answer on ${JSON.stringify(input.slice(0, 20))}` };
  }
  return {
    name,
    nsPerOp: measure(() => {
      for (const input of inputs) fn(input);
    }),
  };
}

/** Prints one table per corpus: median time per pass over the corpus, and the ratio to the regex chain. */
export function run(): void {
  for (const { title, inputs } of corpora) {
    printTable(`normalizeUsername — ${title}`, 'regex chain (baseline)', [
      measureCorpus('regex chain (baseline)', regexChain, inputs),
      measureCorpus('gatehouse normalizeUsername', gatehouse, inputs),
    ]);
  }
}
