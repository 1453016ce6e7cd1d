import { z } from 'zod'
import type { ProtectedFormField } from '../../common/consent-view.ts'
import {
  formContentProblem,
  isEnumField,
  isSensitiveField,
  type RequestedSchema,
} from '../../contracts/form-content.ts'
import { InputRequestRecordSchema, type InputRequestRecord } from '../../contracts/input-request.ts'
import { workbenchError, type WorkbenchError } from '../../common/workbench-error.ts'
import { refusalCode, refusalMessage, type RuntimeClient } from './runtime-client.ts'
import { WorkbenchRefusal } from './workbench-refusal.ts'

/** `assentGui.openSensitiveForm(requestId)`: the id, nothing else. The
 *  workbench never carries a sensitive form's values. */
export const OpenSensitiveFormArgsSchema = z.tuple([z.string().regex(/^[A-Za-z0-9_-]{1,128}$/)])

/** Reads a form through main's own route and checks that it is one the
 *  protected window should show: a pending, sensitive form with a schema. */
export async function readSensitiveForm(
  client: Pick<RuntimeClient, 'request'>,
  requestId: string,
): Promise<InputRequestRecord & { form: { requestedSchema: RequestedSchema } }> {
  const { request } = await client.request(
    z.object({ request: InputRequestRecordSchema }),
    'GET',
    `/v1/input-requests/${encodeURIComponent(requestId)}`,
  )
  if (request.kind !== 'form' || !request.sensitive || !request.form?.requestedSchema) {
    throw new WorkbenchRefusal(
      'not_sensitive_form',
      `input request ${requestId} is not a sensitive form`,
    )
  }
  if (request.status !== 'pending') {
    throw new WorkbenchRefusal(
      'not_pending',
      `input request ${requestId} is no longer waiting (${request.status})`,
    )
  }
  return request as InputRequestRecord & { form: { requestedSchema: RequestedSchema } }
}

/** The fields as the protected window draws them. */
export function protectedFormFields(schema: RequestedSchema): ProtectedFormField[] {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties).map(([name, field]) => {
    const base = {
      name,
      label: field.title ?? name,
      ...(field.description ? { description: field.description } : {}),
      required: required.has(name),
    }
    if (field.type === 'boolean') return { ...base, control: 'switch' as const }
    if (field.type === 'number' || field.type === 'integer') {
      return { ...base, control: 'number' as const, integer: field.type === 'integer' }
    }
    if (field.type === 'array') {
      const choices = field.items.enum.map((value, index) => ({
        value,
        label: field.items.enumNames?.[index] ?? value,
      }))
      return { ...base, control: 'multi' as const, choices }
    }
    if (isEnumField(field)) {
      const choices = field.enum.map((value, index) => ({
        value,
        label: field.enumNames?.[index] ?? value,
      }))
      return { ...base, control: 'choice' as const, choices }
    }
    if (isSensitiveField(field)) return { ...base, control: 'password' as const }
    const format = 'format' in field ? field.format : undefined
    const control =
      format === 'email' || format === 'date'
        ? format
        : format === 'uri'
          ? ('url' as const)
          : ('text' as const)
    return { ...base, control }
  })
}

export type FormSubmission =
  { status: 'submitted'; request: InputRequestRecord } | { status: 'failed'; error: WorkbenchError }

/**
 * Sends the protected window's answer to the runtime through main's own
 * route. Values are checked against the form's schema first: the window's
 * preload is display code, and what it sends is still untrusted input.
 */
export async function submitProtectedForm(
  client: Pick<RuntimeClient, 'raw'>,
  requestId: string,
  schema: RequestedSchema,
  answer: 'submit' | 'decline' | 'cancel',
  values: unknown,
): Promise<FormSubmission> {
  let body: Record<string, unknown>
  if (answer === 'submit') {
    const problem = formContentProblem(schema, values)
    if (problem) {
      return {
        status: 'failed',
        error: workbenchError('form_invalid', `the form does not fit: ${problem}`),
      }
    }
    body = { action: 'accept', content: values }
  } else {
    body = { action: answer === 'decline' ? 'decline' : 'cancel' }
  }
  const response = await client.raw(
    'POST',
    `/v1/input-requests/${encodeURIComponent(requestId)}/protected-response`,
    body,
  )
  if (response.status !== 200) {
    return {
      status: 'failed',
      error: workbenchError(refusalCode(response) ?? 'main_failed', refusalMessage(response)),
    }
  }
  // A 200 main cannot read is reported as a failure, never as submitted.
  const answered = SubmittedFormAnswerSchema.safeParse(response.body)
  if (!answered.success) {
    return {
      status: 'failed',
      error: workbenchError(
        'runtime_unreadable',
        "the runtime's answer to the form did not match its contract",
      ),
    }
  }
  return { status: 'submitted', request: answered.data.request }
}

const SubmittedFormAnswerSchema = z.strictObject({ request: InputRequestRecordSchema })
