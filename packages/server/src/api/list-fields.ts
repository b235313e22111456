/**
 * The page sizes of the schema's list fields, for the query cost analyzer (spec §8: "pagination is used to stay
 * under" the field count). Every list field of gatehouse's own types takes `first` (default
 * {@link DEFAULT_PAGE_SIZE}, at most {@link MAX_PAGE_SIZE}); the introspection lists are bounded by the schema
 * itself (there are only so many types, fields and arguments).
 *
 * @module
 */
import { GraphQLInt, getNullableType, isAbstractType, isEnumType, isInputObjectType, isInterfaceType, isListType, isObjectType } from 'graphql';
import type { GraphQLArgumentConfig, GraphQLField, GraphQLSchema } from 'graphql';
import type { ListFieldPagination, ListFields } from 'gatehouse-auth';

/**
 * How many items a list field returns when the query gives no `first`.
 *
 * @example
 * ```ts
 * DEFAULT_PAGE_SIZE; // 20
 * ```
 */
export const DEFAULT_PAGE_SIZE = 20;

/**
 * The largest `first` a list field accepts; a larger one is refused with HTTP 400 before anything runs.
 *
 * @example
 * ```ts
 * MAX_PAGE_SIZE; // 100
 * ```
 */
export const MAX_PAGE_SIZE = 100;

/**
 * The `first` argument every list field of the schema takes.
 *
 * @param what - What the list holds, for the description ("tokens", "entries").
 * @returns The argument's configuration.
 *
 * @example
 * ```ts
 * const field = { type: new GraphQLList(AccessToken), args: { first: pageSizeArgument('tokens') } };
 * ```
 */
export function pageSizeArgument(what: string): GraphQLArgumentConfig {
  return {
    type: GraphQLInt,
    defaultValue: DEFAULT_PAGE_SIZE,
    description: `How many ${what} to return (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).`,
  };
}

/**
 * The page size a resolver applies: the `first` argument (already checked to be from 0 to {@link MAX_PAGE_SIZE}
 * before execution), or the default.
 *
 * @param args - The field's arguments.
 * @returns How many items to return.
 *
 * @example
 * ```ts
 * pageSize({ first: 5 }); // 5
 * pageSize({});           // 20
 * ```
 */
export function pageSize(args: Readonly<Record<string, unknown>>): number {
  const first = args['first'];
  return typeof first === 'number' && Number.isInteger(first) ? Math.min(Math.max(first, 0), MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
}

/**
 * A list-typed field that takes no `first` with an integer default, so the analyzer cannot bound it.
 *
 * @example
 * ```ts
 * const field: UnboundedListField = { type: 'User', field: 'groups' };
 * ```
 */
export interface UnboundedListField {
  /** The type that has the field. */
  readonly type: string;
  /** The field's name. */
  readonly field: string;
}

/**
 * The list fields of a schema with their page sizes, and those that cannot be bounded.
 *
 * @example
 * ```ts
 * const { listFields, unbounded } = listFieldsOfSchema(schema);
 * ```
 */
export interface SchemaListFields {
  /** By field name, the largest page sizes any field of that name has (the analyzer sees names, not types). */
  readonly listFields: ListFields;
  /** List fields that take no `first`: a schema error (a test walks the schema and expects none). */
  readonly unbounded: readonly UnboundedListField[];
}

/** The most items each introspection list can hold in this schema (at least 1). */
function introspectionBounds(schema: GraphQLSchema): ReadonlyMap<string, number> {
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  let fields = 0;
  let inputFields = 0;
  let args = 0;
  let interfaces = 0;
  let possibleTypes = 0;
  let enumValues = 0;
  let locations = 0;
  for (const type of types) {
    if (isObjectType(type) || isInterfaceType(type)) {
      const own = Object.values(type.getFields());
      fields = Math.max(fields, own.length);
      for (const field of own) args = Math.max(args, field.args.length);
      interfaces = Math.max(interfaces, type.getInterfaces().length);
    }
    if (isAbstractType(type)) possibleTypes = Math.max(possibleTypes, schema.getPossibleTypes(type).length);
    if (isInputObjectType(type)) inputFields = Math.max(inputFields, Object.keys(type.getFields()).length);
    if (isEnumType(type)) enumValues = Math.max(enumValues, type.getValues().length);
  }
  for (const directive of directives) {
    args = Math.max(args, directive.args.length);
    locations = Math.max(locations, directive.locations.length);
  }
  const bounds: readonly (readonly [string, number])[] = [
    ['types', types.length],
    ['fields', fields],
    ['inputFields', inputFields],
    ['args', args],
    ['interfaces', interfaces],
    ['possibleTypes', possibleTypes],
    ['enumValues', enumValues],
    ['directives', directives.length],
    ['locations', locations],
  ];
  return new Map(bounds.map(([name, n]) => [name, Math.max(1, n)]));
}

/** The page sizes of one of gatehouse's own list fields, from its `first` argument; `null` when it has none. */
function ownPagination(field: GraphQLField<unknown, unknown>): ListFieldPagination | null {
  const first = field.args.find((a) => a.name === 'first');
  if (first === undefined || getNullableType(first.type) !== GraphQLInt) return null;
  const size = first.defaultValue;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1 || size > MAX_PAGE_SIZE) return null;
  return { defaultPageSize: size, maxPageSize: MAX_PAGE_SIZE };
}

/**
 * Walks every object and interface type of a schema and lists its list-typed fields with their page sizes:
 * gatehouse's own from their `first` argument, the introspection lists (`__Schema.types`, `__Type.fields`, …) from
 * the schema's size. A list field with neither is `unbounded`.
 *
 * @param schema - The schema.
 * @returns The page sizes by field name, and the unbounded fields.
 *
 * @example
 * ```ts
 * listFieldsOfSchema(createGatehouseSchema(services)).listFields['accessTokens'];
 * // { defaultPageSize: 20, maxPageSize: 100 }
 * ```
 */
export function listFieldsOfSchema(schema: GraphQLSchema): SchemaListFields {
  const introspection = introspectionBounds(schema);
  const listFields = new Map<string, ListFieldPagination>();
  const unbounded: UnboundedListField[] = [];
  const add = (name: string, pagination: ListFieldPagination): void => {
    const known = listFields.get(name);
    listFields.set(
      name,
      known === undefined
        ? pagination
        : {
            defaultPageSize: Math.max(known.defaultPageSize, pagination.defaultPageSize),
            maxPageSize: Math.max(known.maxPageSize, pagination.maxPageSize),
          },
    );
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const list = getNullableType(field.type);
      if (!isListType(list)) continue;
      const bound = type.name.startsWith('__') ? introspection.get(field.name) : undefined;
      const pagination = bound === undefined ? ownPagination(field) : { defaultPageSize: bound, maxPageSize: bound };
      // A list of lists would multiply by a size no argument bounds: unbounded too.
      if (pagination === null || isListType(getNullableType(list.ofType))) unbounded.push({ type: type.name, field: field.name });
      else add(field.name, pagination);
    }
  }
  return { listFields: Object.freeze(Object.fromEntries(listFields)), unbounded };
}
