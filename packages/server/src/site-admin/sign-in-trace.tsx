/**
 * A sign-in's trace as the site administration pages show it: each step's rule with the spec's text
 * (`SIGN_IN_RULES`), its outcome, and the facts it read. Used by the Sign-in check page and the audit log.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { isSignInRuleId, SIGN_IN_RULES, type SignInTraceStep, type TraceValue } from 'gatehouse-auth';

/**
 * A trace step read back from an audit entry: the fields the page shows, checked.
 *
 * @example
 * ```ts
 * const step: ShownStep = { rule: '§7 rule 3', outcome: 'deny', note: 'Refused: …', facts: { reason: 'signup_not_allowed' } };
 * ```
 */
export interface ShownStep {
  /** The rule id. */
  readonly rule: string;
  /** The outcome code. */
  readonly outcome: string;
  /** The outcome as a sentence. */
  readonly note: string;
  /** The facts read, as plain data. */
  readonly facts: unknown;
}

/**
 * Reads the trace an audit entry keeps (`details.trace`, JSON); `null` when it is absent or not a trace.
 *
 * @param text - The stored JSON.
 * @returns The steps, or `null`.
 * @example
 * ```ts
 * readAuditedTrace('[{"rule":"§7 rule 3","facts":{},"outcome":"deny","note":"Refused."}]')?.length; // 1
 * ```
 */
export function readAuditedTrace(text: string | undefined): readonly ShownStep[] | null {
  if (text === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const steps: ShownStep[] = [];
  for (const item of parsed as readonly unknown[]) {
    if (typeof item !== 'object' || item === null) return null;
    const rule: unknown = Reflect.get(item, 'rule');
    const outcome: unknown = Reflect.get(item, 'outcome');
    const note: unknown = Reflect.get(item, 'note');
    if (typeof rule !== 'string' || typeof outcome !== 'string' || typeof note !== 'string') return null;
    steps.push({ rule, outcome, note, facts: Reflect.get(item, 'facts') });
  }
  return steps;
}

/** Facts as indented JSON, one key a line. */
function factsText(facts: unknown): string {
  return JSON.stringify(facts, null, 2) ?? '';
}

/**
 * The trace as an ordered list: rule (with the spec's text unless `compact`), outcome, note, and the facts behind a
 * disclosure.
 *
 * @param props - The steps, a label for the list, and whether to leave the rules' texts out (a narrow table cell).
 * @returns The list.
 * @example
 * ```tsx
 * <SignInTrace steps={explanation.trace} label="Rules applied" />
 * ```
 */
export function SignInTrace(props: { readonly steps: readonly (SignInTraceStep | ShownStep)[]; readonly label: string; readonly compact?: boolean }): ReactElement {
  return (
    <ol className="sign-in-trace" aria-label={props.label}>
      {props.steps.map((s, i) => (
        <li key={i} data-rule={s.rule} data-outcome={s.outcome}>
          <p>
            <strong>{s.rule}</strong> <span className="badge">{s.outcome}</span> {s.note}
          </p>
          {isSignInRuleId(s.rule) && props.compact !== true ? <blockquote>{SIGN_IN_RULES[s.rule]}</blockquote> : null}
          <details>
            <summary>Facts read</summary>
            <pre>{factsText(s.facts as TraceValue)}</pre>
          </details>
        </li>
      ))}
    </ol>
  );
}
