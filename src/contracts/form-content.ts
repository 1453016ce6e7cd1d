/**
 * Checking a form's content against its MCP-style `requestedSchema`, with no
 * dependency, so the workbench (which enables Send with it) and the runtime
 * (which refuses what does not fit) run the very same code. The zod schema
 * that parses a `requestedSchema` lives in form-schema.ts beside it.
 */

interface Described {
  title?: string | undefined
  description?: string | undefined
}

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time' | 'password'

export interface StringField extends Described {
  type: 'string'
  format?: StringFormat | undefined
  minLength?: number | undefined
  maxLength?: number | undefined
  default?: string | undefined
  secret?: boolean | undefined
}

export interface NumberField extends Described {
  type: 'number' | 'integer'
  minimum?: number | undefined
  maximum?: number | undefined
  default?: number | undefined
}

export interface BooleanField extends Described {
  type: 'boolean'
  default?: boolean | undefined
}

/** A single choice. Titled forms (`oneOf: [{ const, title }]`) arrive
 *  read into `enum` (the values) and `enumNames` (what the person sees). */
export interface EnumField extends Described {
  type: 'string'
  enum: string[]
  enumNames?: string[] | undefined
  default?: string | undefined
}

export interface MultiChoiceField extends Described {
  type: 'array'
  items: { type: 'string'; enum: string[]; enumNames?: string[] | undefined }
  minItems?: number | undefined
  maxItems?: number | undefined
  default?: string[] | undefined
}

export type FormField = EnumField | StringField | NumberField | BooleanField | MultiChoiceField

export interface RequestedSchema {
  type: 'object'
  properties: Record<string, FormField>
  required?: string[] | undefined
}

export type FormValue = string | number | boolean | string[]
export type FormContent = Record<string, FormValue>

export function isEnumField(field: FormField): field is EnumField {
  return field.type === 'string' && 'enum' in field
}

/** A field whose value must not show in the workbench, the timeline or a log. */
export function isSensitiveField(field: FormField): boolean {
  return (
    field.type === 'string' &&
    !isEnumField(field) &&
    (field.format === 'password' || field.secret === true)
  )
}

export function isSensitiveSchema(schema: RequestedSchema | undefined): boolean {
  return schema ? Object.values(schema.properties).some(isSensitiveField) : false
}

/**
 * Checks submitted content against the schema: every required field is
 * present, no unknown field, each value has its field's type and bounds.
 * Returns the first problem, naming the field, or `null` when it fits. The
 * same function runs in the workbench (to enable Send) and in the runtime
 * (which refuses what does not fit), so both sides agree.
 */
export function formContentProblem(schema: RequestedSchema, content: unknown): string | null {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    return 'content: must be an object'
  }
  const values = content as Record<string, unknown>
  for (const name of Object.keys(values)) {
    if (!Object.hasOwn(schema.properties, name)) return `${name}: not a field of this form`
  }
  for (const name of schema.required ?? []) {
    if (values[name] === undefined || values[name] === '') return `${name}: required`
  }
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = values[name]
    if (value === undefined) continue
    const problem = fieldProblem(field, value)
    if (problem) return `${name}: ${problem}`
  }
  return null
}

function fieldProblem(field: FormField, value: unknown): string | null {
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false'
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number'
      if (field.type === 'integer' && !Number.isInteger(value)) return 'must be a whole number'
      if (field.minimum !== undefined && value < field.minimum)
        return `must be at least ${field.minimum}`
      if (field.maximum !== undefined && value > field.maximum)
        return `must be at most ${field.maximum}`
      return null
    case 'array': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        return 'must be a list of choices'
      }
      if (!value.every((item) => field.items.enum.includes(item))) return 'has a choice not offered'
      if (new Set(value).size !== value.length) return 'has a choice twice'
      if (field.minItems !== undefined && value.length < field.minItems)
        return `choose at least ${field.minItems}`
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `choose at most ${field.maxItems}`
      return null
    }
    case 'string':
      if (typeof value !== 'string') return 'must be text'
      if (isEnumField(field)) return field.enum.includes(value) ? null : 'is not one of the choices'
      if (field.minLength !== undefined && value.length < field.minLength)
        return `must have at least ${field.minLength} characters`
      if (field.maxLength !== undefined && value.length > field.maxLength)
        return `must have at most ${field.maxLength} characters`
      return formatProblem(field.format, value)
  }
}

function formatProblem(format: string | undefined, value: string): string | null {
  if (value === '') return null
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+$/.test(value) ? null : 'must be an email address'
    case 'uri':
      return URL.canParse(value) ? null : 'must be a URI'
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : 'must be a date (YYYY-MM-DD)'
    case 'date-time':
      return Number.isNaN(Date.parse(value)) ? 'must be a date and time' : null
    default:
      return null
  }
}
