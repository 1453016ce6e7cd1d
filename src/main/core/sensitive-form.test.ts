import { describe, expect, it } from 'vitest'
import { RequestedSchemaSchema } from '../../contracts/form-schema.ts'
import { protectedFormFields } from './sensitive-form.ts'

describe('the protected window’s fields', () => {
  it('label titled choices, single and multiple, by title while their values stay the consts', () => {
    const schema = RequestedSchemaSchema.parse({
      type: 'object',
      properties: {
        token: { type: 'string', format: 'password' },
        hero: { type: 'string', oneOf: [{ const: 'hero-1', title: 'Superman' }] },
        fish: { type: 'array', items: { anyOf: [{ const: 'fish-1', title: 'Tuna' }] } },
      },
    })
    const fields = protectedFormFields(schema)
    expect(fields.find((field) => field.name === 'hero')?.choices).toEqual([
      { value: 'hero-1', label: 'Superman' },
    ])
    expect(fields.find((field) => field.name === 'fish')?.choices).toEqual([
      { value: 'fish-1', label: 'Tuna' },
    ])
  })
})
