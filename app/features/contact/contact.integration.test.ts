import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { action as contactAction } from '~/routes/contact'
import { formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { CONTACT_RATE_LIMIT } from './messages.server'

function randomIp(): string {
  return `172.16.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}`
}

function uniqueEmail(): string {
  return `person-${randomUUID()}@example.com`
}

async function sendContact(fields: Record<string, string>, ip = randomIp()) {
  const request = formRequest('/contact', fields, { headers: { 'x-facet-client-ip': ip } })
  return readResult(await contactAction(routeArgs(request)))
}

describe('contact form action', () => {
  it('stores a valid message and reports success', async () => {
    const email = uniqueEmail()
    const { status, body } = await sendContact({
      name: '  Ada Lovelace ',
      email: email.toUpperCase(),
      company: 'Analytical Engines',
      message: 'We would like an enterprise plan.',
    })
    expect(status).toBe(200)
    expect(body.sent).toBe(true)
    const rows = await getDb().selectFrom('contact_messages').selectAll().where('email', '=', email).execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      full_name: 'Ada Lovelace',
      company: 'Analytical Engines',
      message: 'We would like an enterprise plan.',
    })
  })

  it('stores no company when it is left empty', async () => {
    const email = uniqueEmail()
    const { body } = await sendContact({ name: 'Grace', email, company: '', message: 'Hello' })
    expect(body.sent).toBe(true)
    const row = await getDb().selectFrom('contact_messages').select('company').where('email', '=', email).executeTakeFirstOrThrow()
    expect(row.company).toBeNull()
  })

  it('answers 400 with an error per missing or invalid field and stores nothing', async () => {
    const { status, body } = await sendContact({ name: '', email: 'not-an-email', company: '', message: '   ' })
    expect(status).toBe(400)
    expect(body.sent).toBe(false)
    expect(body.result.error).toMatchObject({
      name: ['Enter your full name.'],
      email: ['Enter a valid email address.'],
      message: ['Tell us how we can help.'],
    })
  })

  it('caps field lengths', async () => {
    const email = uniqueEmail()
    const { status, body } = await sendContact({ name: 'n'.repeat(121), email, message: 'm'.repeat(5001) })
    expect(status).toBe(400)
    expect(body.result.error.name[0]).toMatch(/at most 120/)
    expect(body.result.error.message[0]).toMatch(/at most 5000/)
    const rows = await getDb().selectFrom('contact_messages').select('id').where('email', '=', email).execute()
    expect(rows).toHaveLength(0)
  })

  it('rate-limits messages from one client address', async () => {
    const ip = randomIp()
    for (let i = 0; i < CONTACT_RATE_LIMIT.points; i++) {
      const { body } = await sendContact({ name: 'Sam', email: uniqueEmail(), message: `Message ${i}` }, ip)
      expect(body.sent).toBe(true)
    }
    const blocked = await sendContact({ name: 'Sam', email: uniqueEmail(), message: 'One too many' }, ip)
    expect(blocked.status).toBe(429)
    expect(blocked.headers.get('Retry-After')).toMatch(/^\d+$/)
    expect(blocked.body.sent).toBe(false)
    expect(blocked.body.result.error['']).toEqual([expect.stringMatching(/wait a few minutes/)])
    const other = await sendContact({ name: 'Kim', email: uniqueEmail(), message: 'Different network' })
    expect(other.body.sent).toBe(true)
  })
})
