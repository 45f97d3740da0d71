// One conform form on a team screen: its last result is the action's reply when that reply names
// this form (each row's forms have their own id, so an error lands on the row it belongs to).
import { useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { useActionData } from '@remix-run/react'
import type { SubmissionResult } from '@conform-to/react'
import type { z } from 'zod/mini'

export interface TeamFormReplyData {
  form: string
  result: SubmissionResult<string[]>
}

export function useTeamForm<Schema extends z.ZodMiniObject>(id: string, schema: Schema) {
  const reply = useActionData() as TeamFormReplyData | undefined
  return useForm<z.input<Schema>, z.output<Schema>>({
    id,
    lastResult: reply?.form === id ? reply.result : undefined,
    constraint: getZodConstraint(schema),
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  })
}
