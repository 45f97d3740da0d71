// A tool's form: a real multipart POST to the page's own action, which works without JavaScript.
// Once the page is hydrated the submit is taken over and sent to the /api endpoint instead, with
// upload progress and stages.
import { Form } from '@remix-run/react'
import type { FormEvent, ReactNode } from 'react'
import { useHydrated } from '~/ui/use-hydrated'
import { RUN_FORM_ATTRIBUTE, SubmitBeforeScripts } from './submit-before-scripts'

export function ToolForm({ onRun, label, children }: { onRun: (form: FormData) => void; label: string; children: ReactNode }) {
  const hydrated = useHydrated()
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    onRun(new FormData(event.currentTarget))
  }
  return (
    <>
      <SubmitBeforeScripts />
      <Form
        method="post"
        encType="multipart/form-data"
        onSubmit={submit}
        aria-label={label}
        className="space-y-4"
        data-enhanced={hydrated ? 'true' : 'false'}
        {...{ [RUN_FORM_ATTRIBUTE]: '' }}
      >
        {children}
      </Form>
    </>
  )
}
