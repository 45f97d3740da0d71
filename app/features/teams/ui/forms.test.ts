import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, it } from 'vitest'
import { capFormSchema, createTeamFormSchema, inviteFormSchema, noticeText, TEAM_NOTICES, workingAsFormSchema } from './forms'

function form(fields: Record<string, string>) {
  const data = new FormData()
  for (const [k, v] of Object.entries(fields)) data.set(k, v)
  return data
}

describe('team forms', () => {
  it('an empty cap clears it; a cap is a whole, non-negative number', () => {
    const cleared = parseWithZod(form({ member: 'u1', cap: '' }), { schema: capFormSchema })
    expect(cleared.status).toBe('success')
    expect(cleared.status === 'success' && cleared.value).toEqual({ member: 'u1' })
    const set = parseWithZod(form({ member: 'u1', cap: '25' }), { schema: capFormSchema })
    expect(set.status === 'success' && set.value.cap).toBe(25)
    for (const bad of ['-1', '2.5', 'ten']) {
      const refused = parseWithZod(form({ member: 'u1', cap: bad }), { schema: capFormSchema })
      expect(refused.status, bad).toBe('error')
    }
  })

  it('an invite needs a real address (kept lower-case) and one of the three roles', () => {
    const ok = parseWithZod(form({ email: ' Designer@Example.TEST ', role: 'admin' }), { schema: inviteFormSchema })
    expect(ok.status === 'success' && ok.value).toEqual({ email: 'designer@example.test', role: 'admin' })
    const badEmail = parseWithZod(form({ email: 'nope', role: 'member' }), { schema: inviteFormSchema })
    expect(badEmail.status === 'error' && badEmail.error?.email).toEqual(['Enter a valid email address.'])
    expect(parseWithZod(form({ email: 'a@b.test', role: 'boss' }), { schema: inviteFormSchema }).status).toBe('error')
  })

  it('a team name is 1 to 60 characters after trimming', () => {
    expect(parseWithZod(form({ name: '   ' }), { schema: createTeamFormSchema }).status).toBe('error')
    expect(parseWithZod(form({ name: 'x'.repeat(61) }), { schema: createTeamFormSchema }).status).toBe('error')
    const ok = parseWithZod(form({ name: '  Studio North ' }), { schema: createTeamFormSchema })
    expect(ok.status === 'success' && ok.value.name).toBe('Studio North')
  })

  it('the switch takes a team id or nothing (the own balance)', () => {
    const own = parseWithZod(form({ team: '' }), { schema: workingAsFormSchema })
    expect(own.status === 'success' && own.value.team).toBeUndefined()
    const team = parseWithZod(form({ team: 'abc' }), { schema: workingAsFormSchema })
    expect(team.status === 'success' && team.value.team).toBe('abc')
  })

  it('only known notice keys become text', () => {
    expect(noticeText('joined')).toBe(TEAM_NOTICES.joined)
    expect(noticeText('toString')).toBeNull()
    expect(noticeText('<script>')).toBeNull()
    expect(noticeText(null)).toBeNull()
  })
})
