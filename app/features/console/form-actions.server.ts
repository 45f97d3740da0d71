// What the console's actions share: validate one form with its zod schema, run one domain function,
// and answer either a 303 with a notice (it worked) or the form's errors with a status (400 for a
// form filled wrongly, 409 for a refusal such as a balance too low). Anything else is a real failure.
import { data } from '@remix-run/node'
import { safeParse, type $ZodType, type output } from 'zod/v4/core'
import { OperatorError } from '~/features/operator/errors'
import type { ConsoleFormReply } from './ui/adjust-forms'
import type { ConsoleNotice } from './forms'
import { redirectWithConsoleNotice } from './notice.server'

export async function runConsoleForm<Schema extends $ZodType>(
  form: ConsoleFormReply['form'],
  formData: FormData,
  schema: Schema,
  run: (value: output<Schema>) => Promise<ConsoleNotice>,
  here: string,
) {
  const parsed = safeParse(schema, Object.fromEntries([...formData].filter(([, v]) => typeof v === 'string')))
  if (!parsed.success) {
    const errors: ConsoleFormReply['errors'] = {}
    for (const issue of parsed.error.issues) (errors[String(issue.path[0])] ??= []).push(issue.message)
    return data<ConsoleFormReply>({ form, errors }, { status: 400 })
  }
  try {
    return await redirectWithConsoleNotice(here, await run(parsed.data))
  } catch (error) {
    if (!(error instanceof OperatorError)) throw error
    return data<ConsoleFormReply>({ form, errors: {}, formError: error.message }, { status: error.kind === 'invalid' ? 400 : 409 })
  }
}
