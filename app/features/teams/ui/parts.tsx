// Small pieces the team screens share: the notice a form that worked left for the page (its loader
// reads it once: takeNotice), a form's own error, and a role badge. Client-safe.
import { FormMessage } from '~/ui/field'
import { ROLE_LABELS, type TeamRoleOption } from './forms'

export function Notice({ text }: { text: string | null }) {
  if (!text) return null
  return (
    <div className="mt-4" data-testid="team-notice">
      <FormMessage tone="success">{text}</FormMessage>
    </div>
  )
}

export function FormError({ errors, id }: { errors: string[] | undefined; id?: string }) {
  if (!errors?.length) return null
  return (
    <FormMessage tone="error" id={id}>
      {errors[0]}
    </FormMessage>
  )
}

export function RoleBadge({ role }: { role: TeamRoleOption }) {
  const tone = role === 'owner' ? 'bg-indigo-100 text-indigo-800' : role === 'admin' ? 'bg-sky-100 text-sky-900' : 'bg-slate-100 text-slate-700'
  return <span className={`shrink-0 rounded-full px-2.5 py-0.5 text-xs font-semibold ${tone}`}>{ROLE_LABELS[role]}</span>
}
