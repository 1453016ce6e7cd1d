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

const Choices = z.array(z.string().max(200)).min(1).max(100)

/** One titled choice, as MCP's titled enums list them: the person sees
 *  `title`, the answer carries `const`. */
const TitledChoices = z
  .array(z.strictObject({ const: z.string().max(200), title: z.string().max(200) }))
  .min(1)
  .max(100)

/** Values are the answer a server gets back: two alike would make the
 *  person's choice ambiguous, so such a form is refused. */
function distinct(values: string[]): boolean {
  return new Set(values).size === values.length
}

/** Display names, when given, name every value and no more. */
function namesFit(values: string[], names: string[] | undefined): boolean {
  return names === undefined || names.length === values.length
}

/** Single choice: a string with an enum and optional display names
 *  (`enumNames`, MCP's legacy titled enum). */
const UntitledOrLegacyEnumFieldSchema = z.strictObject({
  type: z.literal('string'),
  ...Described,
  enum: Choices,
  enumNames: z.array(z.string().max(200)).max(100).optional(),
  default: z.string().optional(),
})

/** Single choice with titles (`oneOf: [{ const, title }]`), read into the
 *  same shape as the legacy form, so one drawing and one check serve all. */
const TitledEnumFieldSchema = z
  .strictObject({
    type: z.literal('string'),
    ...Described,
    oneOf: TitledChoices,
    default: z.string().optional(),
  })
  .transform(({ oneOf, ...field }) => ({
    ...field,
    enum: oneOf.map((choice) => choice.const),
    enumNames: oneOf.map((choice) => choice.title),
  }))

export const EnumFieldSchema = z
  .union([UntitledOrLegacyEnumFieldSchema, TitledEnumFieldSchema])
  .refine((field) => distinct(field.enum), 'choices must be distinct')
  .refine((field) => namesFit(field.enum, field.enumNames), 'one display name per choice')

/** The items of a multiple choice: an enum of strings, or titled choices
 *  (`anyOf: [{ const, title }]`) read into values and display names. */
const ChoiceItemsSchema = z
  .union([
    z.strictObject({
      type: z.literal('string'),
      enum: Choices,
      enumNames: z.array(z.string().max(200)).max(100).optional(),
    }),
    z.strictObject({ anyOf: TitledChoices }).transform(({ anyOf }) => ({
      type: 'string' as const,
      enum: anyOf.map((choice) => choice.const),
      enumNames: anyOf.map((choice) => choice.title),
    })),
  ])
  .refine((items) => distinct(items.enum), 'choices must be distinct')
  .refine((items) => namesFit(items.enum, items.enumNames), 'one display name per choice')

/** Multiple choice: an array whose items are an enum of strings. */
export const MultiChoiceFieldSchema = z.strictObject({
  type: z.literal('array'),
  ...Described,
  items: ChoiceItemsSchema,
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

/**
 * Why a `requestedSchema` is outside what a form draws, in words a
 * server's author can act on (a nested object, a list of objects, a type
 * no field has, two choices alike); undefined when it can be drawn. The
 * first problem only, named by its field.
 */
export function requestedSchemaProblem(schema: unknown): string | undefined {
  const parsed = RequestedSchemaSchema.safeParse(schema)
  if (parsed.success) return undefined
  const issue = parsed.error.issues[0]
  const path = issue?.path ?? []
  const properties = (schema as { properties?: unknown } | null)?.properties
  if (path[0] === 'properties' && path.length >= 2 && typeof properties === 'object') {
    const name = String(path[1])
    const problem = fieldProblem((properties as Record<string, unknown>)[name])
    if (problem !== undefined) return `field ${JSON.stringify(name)} ${problem}`
  }
  return `requestedSchema${path.map((part) => `.${String(part)}`).join('')}: ${issue?.message}`
}

/** What makes one field undrawable. A field is read by the one kind its
 *  `type` names, so the reason is that kind's, not "matches no kind". */
function fieldProblem(field: unknown): string | undefined {
  if (typeof field !== 'object' || field === null) return 'is not a field'
  const { type, items, enum: choices, oneOf } = field as Record<string, unknown>
  if (type === 'object') return 'is a nested object; a form holds no objects'
  if (type === 'array') {
    const item = (items ?? {}) as Record<string, unknown>
    if (item.type === 'object') return 'is a list of objects; a list holds fixed choices only'
    if (item.enum === undefined && item.anyOf === undefined) {
      return 'is a list of free values; a list holds fixed choices only'
    }
  }
  const kind =
    type === 'string'
      ? choices !== undefined || oneOf !== undefined
        ? EnumFieldSchema
        : StringFieldSchema
      : type === 'number' || type === 'integer'
        ? NumberFieldSchema
        : type === 'boolean'
          ? BooleanFieldSchema
          : type === 'array'
            ? MultiChoiceFieldSchema
            : undefined
  if (kind === undefined) {
    return `has type ${JSON.stringify(type ?? null)}; a field is text, a number, yes or no, or a choice`
  }
  const issue = kind.safeParse(field).error?.issues[0]
  if (issue === undefined) return undefined
  const within = issue.path.length > 0 ? ` (${issue.path.join('.')})` : ''
  return `cannot be drawn${within}: ${issue.message}`
}
