/**
 * What the API does with text the store cannot hold, and with errors that are not its own answers: a string of
 * the document (an argument, a variable's default) or of the variables holding U+0000 or an unpaired surrogate is
 * refused as `BAD_USER_INPUT` naming it, before anything runs; an error a resolver threw that is not a GraphQL
 * error (a store failure, such as a database's own message) is answered as a generic `INTERNAL_SERVER_ERROR`,
 * its detail only in the log.
 *
 * @module
 */
// graphql is imported by its CommonJS entry, the one graphql-http itself loads (see graphql-endpoint.ts).
import { GraphQLError, Kind } from 'graphql';
import type { ASTNode, ASTVisitor, ExecutionResult, ValidationContext } from 'graphql';
import { findUnstorableText } from 'gatehouse-auth';

/** The longest argument or variable name repeated back in a refusal. */
const MAX_NAMED = 64;

/**
 * The `BAD_USER_INPUT` error of an argument or variable holding text the store cannot hold.
 *
 * @param name - The argument (`note`), or the variable with its path (`$input.note`); `''` when the name itself
 *   cannot be stored.
 * @param nodes - Where in the document, for an argument.
 * @returns The error.
 *
 * @example
 * ```ts
 * unstorableTextError('$note').extensions['code']; // 'BAD_USER_INPUT'
 * ```
 */
export function unstorableTextError(name: string, nodes?: ASTNode): GraphQLError {
  const characters = [...name];
  const shown = characters.length > MAX_NAMED ? `${characters.slice(0, MAX_NAMED).join('')}…` : name;
  const what = name === '' || name === '$' ? 'A name' : `The ${name.startsWith('$') ? 'variable' : 'argument'} ${JSON.stringify(shown)}`;
  return new GraphQLError(`${what} holds a character that cannot be stored (U+0000 or an unpaired surrogate).`, {
    ...(nodes === undefined ? {} : { nodes }),
    extensions: { code: 'BAD_USER_INPUT', argument: name === '$' ? '' : shown },
  });
}

/** Whether an ancestor the visitor passes is one node (not a list of them). */
function isNode(value: ASTNode | readonly ASTNode[]): value is ASTNode {
  return !Array.isArray(value);
}

/**
 * A validation rule: every string value of the document (arguments at any depth of lists and input objects,
 * variable defaults, directive arguments) must be text the store can hold; each one that is not is reported as
 * `BAD_USER_INPUT` naming its argument or variable.
 *
 * @param context - The validation context.
 * @returns The visitor.
 *
 * @example
 * ```ts
 * validate(schema, parse('mutation { createAccessToken(scopes: [], note: "a\\u0000b") { id } }'), [...specifiedRules, StorableStringsRule]);
 * // [GraphQLError: "note" holds a character that cannot be stored …]
 * ```
 */
export function StorableStringsRule(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node, _key, parent, _path, ancestors) {
      if (findUnstorableText(node.value) === null) return;
      let name = '';
      // the nearest argument or variable definition: the parent, or one of the ancestors above it
      const chain = parent === undefined ? ancestors : [...ancestors, parent];
      for (let i = chain.length - 1; i >= 0; i--) {
        const ancestor = chain[i];
        if (ancestor === undefined || !isNode(ancestor)) continue;
        if (ancestor.kind === Kind.ARGUMENT) name = ancestor.name.value;
        else if (ancestor.kind === Kind.VARIABLE_DEFINITION) name = `$${ancestor.variable.name.value}`;
        else continue;
        break;
      }
      context.reportError(unstorableTextError(name, node));
    },
  };
}

/**
 * The result with every error that a resolver threw or rejected with, and that is not a GraphQL error, replaced by
 * a generic `INTERNAL_SERVER_ERROR` at the same path; `report` is told of each (for the log).
 *
 * @param result - What execution produced.
 * @param report - Told of each replaced error and its field's path.
 * @returns The result to answer, or `undefined` when nothing was replaced.
 *
 * @example
 * ```ts
 * onOperation: (_req, _args, result) => withInternalErrorsMasked(result, (e, field) => log({ event: 'internal_error', field })),
 * ```
 */
export function withInternalErrorsMasked(result: ExecutionResult, report?: (error: unknown, field: string) => void): ExecutionResult | undefined {
  const errors = result.errors;
  if (errors === undefined || errors.every((e) => e.originalError === undefined || e.originalError instanceof GraphQLError)) return undefined;
  return {
    ...result,
    errors: errors.map((e) => {
      if (e.originalError === undefined || e.originalError instanceof GraphQLError) return e;
      const field = (e.path ?? []).join('.');
      report?.(e.originalError, field);
      return new GraphQLError('Internal server error.', {
        ...(e.nodes === undefined ? {} : { nodes: e.nodes }),
        ...(e.path === undefined ? {} : { path: e.path }),
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
    }),
  };
}
