import { assert, describe, it } from "@effect/vitest"
import { convertSchema, toOpenApi30 } from "../../src/platform/OpenApi30.ts"

describe("OpenAPI 3.1 -> 3.0.3 schemas", () => {
  it("null in a union or a type array becomes nullable", () => {
    assert.deepStrictEqual(convertSchema({ anyOf: [{ type: "string" }, { type: "null" }] }), {
      type: "string",
      nullable: true
    })
    assert.deepStrictEqual(convertSchema({ type: ["integer", "null"] }), { type: "integer", nullable: true })
    assert.deepStrictEqual(convertSchema({ type: ["integer", "string"] }), {
      anyOf: [{ type: "integer" }, { type: "string" }]
    })
    assert.deepStrictEqual(
      convertSchema({ anyOf: [{ $ref: "#/components/schemas/A" }, { type: "null" }], description: "maybe an A" }),
      { allOf: [{ $ref: "#/components/schemas/A" }], nullable: true, description: "maybe an A" }
    )
    assert.deepStrictEqual(
      convertSchema({ anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] }),
      { anyOf: [{ type: "string" }, { type: "integer" }], nullable: true }
    )
  })

  it("const becomes enum, examples becomes example, numeric exclusive bounds become booleans", () => {
    assert.deepStrictEqual(convertSchema({ type: "boolean", const: true }), { type: "boolean", enum: [true] })
    assert.deepStrictEqual(convertSchema({ type: "integer", examples: [50, 10] }), { type: "integer", example: 50 })
    assert.deepStrictEqual(
      convertSchema({ type: "number", exclusiveMinimum: 0 }),
      { type: "number", minimum: 0, exclusiveMinimum: true }
    )
  })

  it("converts nested schemas, keeps a $ref's siblings, and drops what 3.0 has no word for", () => {
    assert.deepStrictEqual(
      convertSchema({
        type: "object",
        properties: {
          list: { type: "array", items: { anyOf: [{ type: "string", examples: ["x"] }, { type: "null" }] } },
          partner: { $ref: "#/components/schemas/P", description: "who" },
          tuple: { type: "array", prefixItems: [{ type: "string" }], items: false }
        },
        propertyNames: { pattern: "^[a-z]+$" },
        patternProperties: { "^x-": { type: "string" } }
      }),
      {
        type: "object",
        properties: {
          list: { type: "array", items: { type: "string", example: "x", nullable: true } },
          partner: { allOf: [{ $ref: "#/components/schemas/P" }], description: "who" },
          tuple: { type: "array", items: {} }
        },
        additionalProperties: { type: "string" }
      }
    )
  })

  it("rewrites the document's version and every schema in it, leaving the input untouched", () => {
    const v31 = {
      openapi: "3.1.0",
      info: { title: "T", version: "1", summary: "3.1 only" },
      paths: {
        "/x": {
          get: {
            parameters: [{ name: "page", in: "query", schema: { type: "integer", examples: [1] } }],
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { type: "object", properties: { n: { const: 1 } } } } }
              }
            }
          }
        }
      },
      components: { schemas: { N: { type: ["string", "null"] } } }
    }
    const before = structuredClone(v31)
    const v30 = toOpenApi30(v31)
    assert.deepStrictEqual(v31, before)
    assert.strictEqual(v30.openapi, "3.0.3")
    assert.deepStrictEqual(v30.info, { title: "T", version: "1" })
    assert.deepStrictEqual(v30.paths["/x"].get.parameters[0].schema, { type: "integer", example: 1 })
    assert.deepStrictEqual(
      v30.paths["/x"].get.responses["200"].content["application/json"].schema.properties.n,
      { enum: [1] }
    )
    assert.deepStrictEqual(v30.components.schemas.N, { type: "string", nullable: true })
  })
})
