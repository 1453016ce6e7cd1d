import type { ProtectedFormField } from '../common/consent-view.ts'
import { displaySafe, flatDisplay } from '../common/display-safe-text.ts'
import type { SafeTextWriter } from './safe-text-writer.ts'

export type FormValues = Record<string, string | number | boolean | string[]>

/** Reads what the person typed, from the inputs this module created: the
 *  preload keeps its own references and never looks the page up again. */
export interface FormCollector {
  values(): FormValues
  /** The first field that is required and empty, or not a number. */
  problem(): string | null
}

const INPUT_TYPES = {
  text: 'text',
  password: 'password',
  email: 'email',
  url: 'url',
  date: 'date',
  number: 'number',
} as const

/**
 * Draws a sensitive form's fields into `container` with DOM calls only:
 * every label goes through the safe-text writer, so a field name or
 * description from an MCP server can neither become markup nor hide part of
 * itself. The page itself runs no script.
 */
export function renderFormFields(
  document: Document,
  container: HTMLElement,
  fields: readonly ProtectedFormField[],
  requiredLabel: string,
  writer: SafeTextWriter,
): FormCollector {
  container.replaceChildren()
  const readers: Array<{ field: ProtectedFormField; read: () => FormValues[string] | undefined }> =
    []
  for (const [index, field] of fields.entries()) {
    const id = `assent-field-${index}`
    const wrapper = document.createElement('div')
    wrapper.className = 'consent-form-field'
    const label = document.createElement(
      field.control === 'choice' || field.control === 'multi' ? 'p' : 'label',
    )
    label.className = 'consent-form-label'
    writer.append(label, field.label)
    if (field.required) label.append(document.createTextNode(` (${requiredLabel})`))
    if (label instanceof HTMLLabelElement) label.htmlFor = id
    wrapper.append(label)
    if (field.description) {
      const description = document.createElement('p')
      description.className = 'consent-hint'
      writer.append(description, field.description, { multiline: true })
      wrapper.append(description)
    }
    readers.push({ field, read: appendControl(document, wrapper, field, id, writer) })
    container.append(wrapper)
  }
  const values = () => {
    const result: FormValues = {}
    for (const { field, read } of readers) {
      const value = read()
      if (value !== undefined) result[field.name] = value
    }
    return result
  }
  return {
    values,
    problem: () => {
      const current = values()
      for (const { field, read } of readers) {
        // Named in an error line of plain text: its flat safe form.
        const named = flatDisplay(displaySafe(field.label))
        if (field.control === 'number' && Number.isNaN(read())) return named
        if (field.required && current[field.name] === undefined) return named
      }
      return null
    },
  }
}

function appendControl(
  document: Document,
  wrapper: HTMLElement,
  field: ProtectedFormField,
  id: string,
  writer: SafeTextWriter,
): () => FormValues[string] | undefined {
  if (field.control === 'switch') {
    const input = document.createElement('input')
    input.type = 'checkbox'
    input.id = id
    input.setAttribute('role', 'switch')
    wrapper.prepend(input)
    return () => input.checked
  }
  if (field.control === 'choice' || field.control === 'multi') {
    const inputs: HTMLInputElement[] = []
    for (const [index, choice] of (field.choices ?? []).entries()) {
      const option = document.createElement('label')
      option.className = 'consent-form-choice'
      const input = document.createElement('input')
      input.type = field.control === 'choice' ? 'radio' : 'checkbox'
      input.name = id
      input.id = `${id}-${index}`
      input.value = choice.value
      const text = document.createElement('span')
      writer.append(text, choice.label)
      option.append(input, text)
      wrapper.append(option)
      inputs.push(input)
    }
    if (field.control === 'choice') {
      return () => inputs.find((input) => input.checked)?.value
    }
    return () => {
      const chosen = inputs.filter((input) => input.checked).map((input) => input.value)
      return chosen.length > 0 ? chosen : undefined
    }
  }
  const input = document.createElement('input')
  input.type = INPUT_TYPES[field.control]
  input.id = id
  input.className = 'consent-form-input'
  input.autocomplete = 'off'
  input.spellcheck = false
  if (field.control === 'number') {
    input.inputMode = field.integer ? 'numeric' : 'decimal'
    input.step = field.integer ? '1' : 'any'
  }
  wrapper.append(input)
  return () => {
    if (input.value === '') return undefined
    return field.control === 'number' ? Number(input.value) : input.value
  }
}
