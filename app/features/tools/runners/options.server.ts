// Reading a multipart option field through its schema: the first problem becomes the 400's message.
import type { z } from 'zod'
import { ToolError } from '../../jobs/errors.server'

export function parseField<Schema extends z.ZodType>(schema: Schema, value: unknown): z.output<Schema> {
  const parsed = schema.safeParse(value)
  if (!parsed.success) throw new ToolError(400, parsed.error.issues[0]?.message ?? 'The options are not valid.')
  return parsed.data
}

/** The client's file name without folders, extension or characters that break a header. */
export function baseName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? ''
  const stem = last.replace(/\.[^.]*$/, '')
  return stem
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f"*:<>?|]/g, '')
    .trim()
    .slice(0, 100)
}
