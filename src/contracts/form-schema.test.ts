import { describe, expect, it } from 'vitest'
import {
  RequestedSchemaSchema,
  formContentProblem,
  isSensitiveSchema,
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
