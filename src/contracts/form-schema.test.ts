import { describe, expect, it } from 'vitest'
import {
  RequestedSchemaSchema,
  formContentProblem,
  isSensitiveSchema,
  requestedSchemaProblem,
  type RequestedSchema,
} from './form-schema.ts'

const schema: RequestedSchema = RequestedSchemaSchema.parse({
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 18, maximum: 130 },
    ratio: { type: 'number' },
    agree: { type: 'boolean' },
    size: { type: 'string', enum: ['s', 'm', 'l'] },
    toppings: { type: 'array', items: { type: 'string', enum: ['ham', 'egg'] }, maxItems: 1 },
  },
  required: ['email', 'agree'],
})

describe('the elicitation schema subset', () => {
  it('refuses nested objects, unknown keywords and required names that are not fields', () => {
    const nested = { type: 'object', properties: { a: { type: 'object', properties: {} } } }
    expect(RequestedSchemaSchema.safeParse(nested).success).toBe(false)
    const ref = { type: 'object', properties: { a: { $ref: '#/x' } } }
    expect(RequestedSchemaSchema.safeParse(ref).success).toBe(false)
    const missing = { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }
    expect(RequestedSchemaSchema.safeParse(missing).success).toBe(false)
  })

  it('marks a password format or a secret field as sensitive, and nothing else', () => {
    expect(isSensitiveSchema(schema)).toBe(false)
    const password = { type: 'object', properties: { p: { type: 'string', format: 'password' } } }
    const secret = { type: 'object', properties: { p: { type: 'string', secret: true } } }
    expect(isSensitiveSchema(RequestedSchemaSchema.parse(password))).toBe(true)
    expect(isSensitiveSchema(RequestedSchemaSchema.parse(secret))).toBe(true)
    expect(isSensitiveSchema(undefined)).toBe(false)
  })
})

describe('why a schema cannot be drawn', () => {
  const form = (properties: Record<string, unknown>) => ({ type: 'object', properties })

  it.each([
    [{ a: { type: 'object', properties: {} } }, 'field "a" is a nested object'],
    [{ a: { type: 'array', items: { type: 'object' } } }, 'field "a" is a list of objects'],
    [{ a: { type: 'array', items: { type: 'string' } } }, 'field "a" is a list of free values'],
    [{ a: { type: 'date' } }, 'field "a" has type "date"'],
    [{ a: { $ref: '#/x' } }, 'field "a" has type null'],
    [{ a: { type: 'string', enum: ['s', 's'] } }, 'field "a" cannot be drawn: choices must be'],
    [{ a: { type: 'string', pattern: '^x' } }, 'field "a" cannot be drawn: Unrecognized key'],
  ])('names the field and what it is: %j', (properties, reason) => {
    expect(requestedSchemaProblem(form(properties))).toContain(reason)
  })

  it('names what is wrong beside the fields, and nothing for a form it draws', () => {
    expect(requestedSchemaProblem({ type: 'array' })).toContain('requestedSchema.type')
    expect(requestedSchemaProblem({ ...form({ a: { type: 'string' } }), required: ['b'] })).toBe(
      'requestedSchema: required names a field that does not exist',
    )
    expect(requestedSchemaProblem(schema)).toBeUndefined()
  })
})

describe('checking form content against the schema', () => {
  const valid = { email: 'a@b.c', agree: false }

  it('accepts content that fits, a false switch counting as filled', () => {
    expect(formContentProblem(schema, valid)).toBeNull()
    expect(
      formContentProblem(schema, { ...valid, age: 30, ratio: 0.5, size: 'm', toppings: ['egg'] }),
    ).toBeNull()
  })

  it('names the field of the first problem', () => {
    expect(formContentProblem(schema, { agree: true })).toBe('email: required')
    expect(formContentProblem(schema, { ...valid, email: '' })).toBe('email: required')
    expect(formContentProblem(schema, { ...valid, email: 'nope' })).toBe(
      'email: must be an email address',
    )
    expect(formContentProblem(schema, { ...valid, age: 17 })).toBe('age: must be at least 18')
    expect(formContentProblem(schema, { ...valid, age: 20.5 })).toBe('age: must be a whole number')
    expect(formContentProblem(schema, { ...valid, age: '20' })).toBe('age: must be a number')
    expect(formContentProblem(schema, { ...valid, agree: 'yes' })).toBe(
      'agree: must be true or false',
    )
    expect(formContentProblem(schema, { ...valid, size: 'xl' })).toBe(
      'size: is not one of the choices',
    )
    expect(formContentProblem(schema, { ...valid, toppings: ['ham', 'egg'] })).toBe(
      'toppings: choose at most 1',
    )
    expect(formContentProblem(schema, { ...valid, toppings: ['cheese'] })).toBe(
      'toppings: has a choice not offered',
    )
    expect(formContentProblem(schema, { ...valid, extra: 1 })).toBe(
      'extra: not a field of this form',
    )
    expect(formContentProblem(schema, [])).toBe('content: must be an object')
  })
})

describe("MCP's titled enums", () => {
  const titled = RequestedSchemaSchema.parse({
    type: 'object',
    properties: {
      hero: {
        type: 'string',
        title: 'Hero',
        oneOf: [
          { const: 'hero-1', title: 'Superman' },
          { const: 'hero-2', title: 'Wonder Woman' },
        ],
        default: 'hero-1',
      },
      fish: {
        type: 'array',
        minItems: 1,
        maxItems: 2,
        items: {
          anyOf: [
            { const: 'fish-1', title: 'Tuna' },
            { const: 'fish-2', title: 'Salmon' },
            { const: 'fish-3', title: 'Trout' },
          ],
        },
      },
      pet: { type: 'string', enum: ['pet-1', 'pet-2'], enumNames: ['Cats', 'Dogs'] },
    },
    required: ['hero'],
  })

  it('reads single and multiple titled choices into values the answer carries and titles the person sees', () => {
    expect(titled.properties['hero']).toMatchObject({
      enum: ['hero-1', 'hero-2'],
      enumNames: ['Superman', 'Wonder Woman'],
    })
    expect(titled.properties['hero']).not.toHaveProperty('oneOf')
    expect(titled.properties['fish']).toMatchObject({
      items: {
        type: 'string',
        enum: ['fish-1', 'fish-2', 'fish-3'],
        enumNames: ['Tuna', 'Salmon', 'Trout'],
      },
    })
    expect(titled.properties['pet']).toMatchObject({ enumNames: ['Cats', 'Dogs'] })
  })

  it('takes the const values as answers and refuses a title or a value not offered', () => {
    expect(formContentProblem(titled, { hero: 'hero-2', fish: ['fish-1', 'fish-3'] })).toBeNull()
    expect(formContentProblem(titled, { hero: 'Superman' })).toBe('hero: is not one of the choices')
    expect(formContentProblem(titled, { hero: 'hero-1', fish: ['Tuna'] })).toBe(
      'fish: has a choice not offered',
    )
    expect(
      formContentProblem(titled, { hero: 'hero-1', fish: ['fish-1', 'fish-2', 'fish-3'] }),
    ).toBe('fish: choose at most 2')
  })

  it('reads a schema it produced again to the same schema', () => {
    expect(RequestedSchemaSchema.parse(titled)).toEqual(titled)
  })

  it('refuses repeated values, display names that do not match the choices, and shapes outside the spec', () => {
    const field = (property: unknown) =>
      RequestedSchemaSchema.safeParse({ type: 'object', properties: { f: property } }).success
    const twice = [
      { const: 'a', title: 'A' },
      { const: 'a', title: 'Also A' },
    ]
    expect(field({ type: 'string', oneOf: twice })).toBe(false)
    expect(field({ type: 'array', items: { anyOf: twice } })).toBe(false)
    expect(field({ type: 'string', enum: ['a', 'a'] })).toBe(false)
    expect(field({ type: 'string', enum: ['a', 'b'], enumNames: ['A'] })).toBe(false)
    expect(field({ type: 'string', oneOf: [] })).toBe(false)
    expect(field({ type: 'string', oneOf: [{ const: 'a' }] })).toBe(false)
    expect(field({ type: 'string', oneOf: [{ const: 1, title: 'One' }] })).toBe(false)
    expect(field({ type: 'string', oneOf: [{ const: 'a', title: 'A', extra: true }] })).toBe(false)
    expect(field({ type: 'string', oneOf: [{ const: 'a', title: 'A' }], enum: ['a'] })).toBe(false)
    expect(
      field({ type: 'array', items: { type: 'string', anyOf: [{ const: 'a', title: 'A' }] } }),
    ).toBe(false)
    const many = Array.from({ length: 101 }, (_, index) => ({
      const: `v${index}`,
      title: `V${index}`,
    }))
    expect(field({ type: 'string', oneOf: many })).toBe(false)
    expect(field({ type: 'string', oneOf: [{ const: 'a', title: 'x'.repeat(201) }] })).toBe(false)
    expect(field({ type: 'string', oneOf: many.slice(0, 100) })).toBe(true)
  })
})
