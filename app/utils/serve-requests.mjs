// The thread's side of request-thread.server.ts: answers each request with what `handle` gives,
// or with its error. Plain JavaScript, imported by the worker threads' plain-JS entries.
import { parentPort } from 'node:worker_threads'

/**
 * @param {(message: any) => Promise<{ answer: object; transfer: ArrayBuffer[] }>} handle
 */
export function serveRequests(handle) {
  if (!parentPort) throw new Error('serveRequests runs in a worker thread')
  const port = parentPort
  port.on('message', (message) => {
    // Tests make the thread fail the way a crash does (an uncaught error ends it) while a request is
    // queued behind: ending it from outside during a native call can abort the whole process instead.
    if (message.op === 'crash') throw new Error('thread crash requested')
    handle(message).then(
      ({ answer, transfer }) => port.postMessage({ id: message.id, ok: true, ...answer }, transfer),
      (error) => port.postMessage({ id: message.id, ok: false, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } }),
    )
  })
}
