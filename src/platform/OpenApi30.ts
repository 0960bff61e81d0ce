/**
 * OpenAPI 3.1 -> 3.0.3. effect writes 3.1 (whose schemas are JSON Schema
 * 2020-12); the contract promises 3.0, which most partner tooling (code
 * generators, gateways, older validators) still reads best. The two differ
 * mostly in schemas, so this rewrites every schema and the few document
 * fields 3.0 does not know, and leaves the rest as it is.
 */

type Json = Record<string, any>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** JSON Schema keywords a 3.0 Schema Object does not have, with no 3.0 equivalent worth keeping. */
const droppedKeywords = new Set([
  "$schema",
  "$id",
  "$anchor",
  "$comment",
  "$defs",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "dependentRequired",
  "dependentSchemas",
  "if",
  "then",
  "else",
  "contains",
  "minContains",
  "maxContains",
  "prefixItems"
])

const isNullSchema = (schema: unknown) =>
  isObject(schema) && schema.type === "null" &&
  Object.keys(schema).every((key) => key === "type" || key === "description")

/** A 3.0 schema that also admits null (3.0 has no null type: `nullable` says it). */
const withNullable = (schema: Json): Json =>
  typeof schema.$ref === "string" ? { allOf: [schema], nullable: true } : { ...schema, nullable: true }

/** Converts one schema (and everything under it) from JSON Schema 2020-12 to an OpenAPI 3.0 Schema Object. */
export const convertSchema = (input: unknown): unknown => {
  if (!isObject(input)) return input
  let schema: Json = { ...input }
  // anyOf/oneOf with a null member -> the rest, nullable (first, so what is merged in is converted below)
  // oxlint-disable-next-line oxc/no-accumulating-spread -- two combinators at most: a copy each is nothing
  for (const combinator of ["anyOf", "oneOf"] as const) {
    const members = schema[combinator]
    if (!Array.isArray(members) || !members.some(isNullSchema)) continue
    const rest = members.filter((member) => !isNullSchema(member))
    delete schema[combinator]
    if (
      rest.length === 1 && isObject(rest[0]) &&
      Object.keys(schema).every((key) => key === "description" || key === "title")
    ) {
      schema = { ...withNullable(rest[0]), ...schema }
    } else {
      schema[combinator] = rest
      schema.nullable = true
    }
  }
  // A string holding JSON (an SSE event's data): 3.0 cannot say so, so it documents the JSON it holds.
  if (schema.type === "string" && schema.contentMediaType === "application/json" && isObject(schema.contentSchema)) {
    const { contentMediaType: _type, contentSchema, type: _string, ...rest } = schema
    schema = { ...contentSchema, ...rest, description: rest.description ?? "Sent as JSON text" }
  }
  for (const key of Object.keys(schema)) if (droppedKeywords.has(key)) delete schema[key]

  // const -> enum
  if ("const" in schema) {
    schema.enum = [schema.const]
    delete schema.const
  }
  // examples (an array) -> example (one)
  if (Array.isArray(schema.examples)) {
    if (schema.examples.length > 0 && !("example" in schema)) schema.example = schema.examples[0]
    delete schema.examples
  }
  // numeric exclusive bounds are booleans beside minimum/maximum in 3.0
  for (const [exclusive, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof schema[exclusive] === "number") {
      schema[bound] = schema[exclusive]
      schema[exclusive] = true
    }
  }
  // type arrays: ["string", "null"] -> string + nullable; several types -> anyOf
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type: string) => type !== "null")
    const nullable = types.length !== schema.type.length
    delete schema.type
    if (types.length === 1) schema.type = types[0]
    else if (types.length > 1) schema.anyOf = [...(schema.anyOf ?? []), ...types.map((type: string) => ({ type }))]
    if (nullable) schema.nullable = true
  }
  // a lone null type
  if (schema.type === "null") {
    delete schema.type
    schema.nullable = true
    schema.enum = [null]
  }
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) schema.nullable = true
  // patternProperties -> additionalProperties (3.0 cannot constrain key patterns)
  if (isObject(schema.patternProperties)) {
    const patterns = Object.values(schema.patternProperties)
    if (schema.additionalProperties === undefined || schema.additionalProperties === false) {
      schema.additionalProperties = patterns.length === 1 ? patterns[0] : { anyOf: patterns }
    }
    delete schema.patternProperties
  }
  // `items: false` (a tuple's end) means nothing in 3.0; an array needs `items`
  if (schema.items === false) delete schema.items
  if (schema.type === "array" && schema.items === undefined) schema.items = {}

  // recurse into subschemas
  for (const key of ["items", "not", "additionalProperties"] as const) {
    if (isObject(schema[key])) schema[key] = convertSchema(schema[key])
  }
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    if (Array.isArray(schema[key])) schema[key] = schema[key].map(convertSchema)
  }
  if (isObject(schema.properties)) {
    schema.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => [name, convertSchema(property)])
    )
  }
  // 3.0 ignores a $ref's siblings: keep them by wrapping the reference
  if (typeof schema.$ref === "string" && Object.keys(schema).length > 1) {
    const { $ref, ...siblings } = schema
    schema = { allOf: [{ $ref }], ...siblings }
  }
  return schema
}

const convertContent = (content: unknown) => {
  if (!isObject(content)) return
  for (const media of Object.values(content)) {
    if (isObject(media) && media.schema !== undefined) media.schema = convertSchema(media.schema)
  }
}

const convertParameters = (parameters: unknown) => {
  if (!Array.isArray(parameters)) return
  for (const parameter of parameters) {
    if (!isObject(parameter)) continue
    if (parameter.schema !== undefined) parameter.schema = convertSchema(parameter.schema)
    convertContent(parameter.content)
  }
}

const convertResponses = (responses: unknown) => {
  if (!isObject(responses)) return
  for (const response of Object.values(responses)) {
    if (!isObject(response)) continue
    convertContent(response.content)
    if (isObject(response.headers)) {
      for (const header of Object.values(response.headers)) {
        if (isObject(header) && header.schema !== undefined) header.schema = convertSchema(header.schema)
      }
    }
  }
}

const operationMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

const convertPathItem = (pathItem: unknown) => {
  if (!isObject(pathItem)) return
  convertParameters(pathItem.parameters)
  for (const method of operationMethods) {
    const operation = pathItem[method]
    if (!isObject(operation)) continue
    convertParameters(operation.parameters)
    if (isObject(operation.requestBody)) convertContent(operation.requestBody.content)
    convertResponses(operation.responses)
  }
  // Operations 3.0 has no method for (QUERY) cannot be described in it.
  delete pathItem["x-oai-additionalOperations"]
}

/** The same document as OpenAPI 3.0.3. The input is not changed. */
export const toOpenApi30 = (document: Json): Json => {
  const spec: Json = structuredClone(document)
  spec.openapi = "3.0.3"
  delete spec.jsonSchemaDialect
  if (isObject(spec.info)) {
    delete spec.info.summary
    if (isObject(spec.info.license)) delete spec.info.license.identifier
  }
  for (const pathItem of Object.values(spec.paths ?? {})) convertPathItem(pathItem)
  // 3.0 has no webhooks: the same path items under the `x-webhooks` extension, which 3.0 tooling that knows of
  // webhooks (Redocly, Scalar) reads, and the rest ignores.
  if (isObject(spec.webhooks)) {
    for (const pathItem of Object.values(spec.webhooks)) convertPathItem(pathItem)
    spec["x-webhooks"] = spec.webhooks
  }
  delete spec.webhooks
  const components = spec.components
  if (isObject(components)) {
    delete components.pathItems
    if (isObject(components.schemas)) {
      for (const [name, schema] of Object.entries(components.schemas)) components.schemas[name] = convertSchema(schema)
    }
    convertParameters(Object.values(components.parameters ?? {}))
    convertResponses(components.responses)
    for (const body of Object.values(components.requestBodies ?? {})) {
      if (isObject(body)) convertContent(body.content)
    }
  }
  return spec
}
