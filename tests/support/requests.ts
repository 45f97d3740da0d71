// Building requests for loaders, actions and resource routes in integration tests.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'

export const BASE = 'http://localhost:3000'

export function routeArgs(request: Request, params: Record<string, string> = {}) {
  return { request, params, context: { cspNonce: 'test' } } satisfies LoaderFunctionArgs & ActionFunctionArgs
}

export function jsonRequest(pathname: string, body: unknown, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers)
  headers.set('content-type', 'application/json')
  return new Request(BASE + pathname, { method: 'POST', ...init, headers, body: JSON.stringify(body) })
}

export function formRequest(pathname: string, fields: Record<string, string | Blob>, init: RequestInit = {}) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  return new Request(BASE + pathname, { method: 'POST', ...init, body: form })
}

/**
 * What Remix answers for a loader or action: what it returned, or the Response it threw (the guards in
 * features/account/guards.server.ts throw their refusals).
 */
export async function answerOf(result: unknown): Promise<unknown> {
  try {
    return await result
  } catch (error) {
    if (error instanceof Response) return error
    throw error
  }
}

/** Unwraps what a loader or action returned: a Response, or Remix's data() wrapper, or a plain value. */
export async function readResult(result: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  if (result instanceof Response) {
    const type = result.headers.get('content-type') ?? ''
    const body = type.includes('json') ? await result.json() : await result.arrayBuffer()
    return { status: result.status, headers: result.headers, body }
  }
  if (result && typeof result === 'object' && 'type' in result && (result as any).type === 'DataWithResponseInit') {
    const wrapped = result as unknown as { data: unknown; init?: ResponseInit | null }
    return {
      status: wrapped.init?.status ?? 200,
      headers: new Headers(wrapped.init?.headers),
      body: wrapped.data,
    }
  }
  return { status: 200, headers: new Headers(), body: result }
}

export function cookieFrom(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
}
