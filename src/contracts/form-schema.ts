import { z } from 'zod'
import type { FormField, RequestedSchema } from './form-content.ts'

export {
  formContentProblem,
  isEnumField,
  isSensitiveField,
  isSensitiveSchema,
  type FormContent,
  type FormField,
  type FormValue,
  type RequestedSchema,
} from './form-content.ts'

/**
 * The subset of JSON Schema an MCP server may send as an elicitation's
 * `requestedSchema`: a flat object of primitive fields. Anything richer
 * (nested objects, `$ref`, arrays of anything but an enum) is refused, so a
 * form can always be drawn and checked field by field.
 */
const Described = {
  title: z.string().max(200).optional(),
  description: z.string().max(2_000).optional(),
}

export const StringFormatSchema = z.enum(['email', 'uri', 'date', 'date-time', 'password'])

export const StringFieldSchema = z.strictObject({
  type: z.literal('string'),
  ...Described,
  format: StringFormatSchema.optional(),
  minLength: z.number().int().min(0).optional(),
  maxLength: z.number().int().min(0).optional(),
  default: z.string().optional(),
  /** The server marks the value secret: the form opens in the protected window. */
  secret: z.boolean().optional(),
})

export const NumberFieldSchema = z.strictObject({
  type: z.enum(['number', 'integer']),
  ...Described,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
})

export const BooleanFieldSchema = z.strictObject({
  type: z.literal('boolean'),
  ...Described,
  default: z.boolean().optional(),
})

/** Single choice: a string with an enum (and optional display names). */
export const EnumFieldSchema = z.strictObject({
  type: z.literal('string'),
  ...Described,
  enum: z.array(z.string()).min(1).max(100),
  enumNames: z.array(z.string()).optional(),
  default: z.string().optional(),
})

/** Multiple choice: an array whose items are an enum of strings. */
export const MultiChoiceFieldSchema = z.strictObject({
  type: z.literal('array'),
  ...Described,
  items: z.strictObject({
    type: z.literal('string'),
    enum: z.array(z.string()).min(1).max(100),
  }),
  minItems: z.number().int().min(0).optional(),
  maxItems: z.number().int().min(0).optional(),
  default: z.array(z.string()).optional(),
})

export const FormFieldSchema = z.union([
  EnumFieldSchema,
  StringFieldSchema,
  NumberFieldSchema,
  BooleanFieldSchema,
  MultiChoiceFieldSchema,
])

const FIELD_NAME = /^[A-Za-z0-9_.-]{1,64}$/

export const RequestedSchemaSchema = z
  .strictObject({
    type: z.literal('object'),
    properties: z
      .record(
        z.string().regex(FIELD_NAME, 'field names are letters, digits, _ . -'),
        FormFieldSchema,
      )
      .refine((fields) => Object.keys(fields).length <= 50, 'at most 50 fields'),
    required: z.array(z.string()).optional(),
  })
  .refine(
    (schema) => (schema.required ?? []).every((name) => name in schema.properties),
    'required names a field that does not exist',
  )

// The page validates with the hand-written types in form-content.ts (it does
// not bundle zod); these lines fail to compile if the two ever disagree.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const fieldTypesAgree: Same<z.infer<typeof FormFieldSchema>, FormField> = true
const schemaTypesAgree: Same<z.infer<typeof RequestedSchemaSchema>, RequestedSchema> = true
void fieldTypesAgree
void schemaTypesAgree
