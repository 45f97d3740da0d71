// The inference thread: every onnxruntime session of the server lives and runs here, in a
// worker_threads Worker started by registry.server.ts. onnxruntime-node runs `session.run()`
// synchronously on the thread that calls it, so on the main thread each inference froze the whole
// server for its length (docs/decisions/021, 070). Plain JavaScript so that plain `node` runs it,
// in development, tests, the built server and the Docker image alike.
//
// Protocol (worker messages, one at a time per request id; ArrayBuffers are transferred):
//   { op: 'open', id, key, source: string (a file) | Uint8Array (a model in memory), options }
//     → { id, ok: true, inputNames, outputNames }
//   { op: 'run', id, key, file?: string, inputName, data: Float32Array, dims, options?, fetches?: string[] }
//     → { id, ok: true, outputs: { [name]: { type, data, dims } }, ms }
//     `file` lets a replacement thread reopen a file's session it has not seen (after a crash); `fetches`
//     names the outputs wanted (all of them when absent).
//   { op: 'release', id, key } → { id, ok: true }
//   { op: 'crash' } ends the thread with an uncaught error (tests of the pool's crash handling).
// Any failure answers { id, ok: false, error: { name, message } }.
import ort from 'onnxruntime-node'
import { serveRequests } from '../../../utils/serve-requests.mjs'

/** Sessions by key (a file path, or a model built in memory): one per model in this thread. */
const sessions = new Map()

async function open(key, source, options) {
  let pending = sessions.get(key)
  if (!pending) {
    // Two calls because create's overloads take a path or bytes, not a union of both.
    pending = typeof source === 'string' ? ort.InferenceSession.create(source, options) : ort.InferenceSession.create(source, options)
    // A model that fails to open must not poison the cache: the next run tries again.
    pending.catch(() => sessions.delete(key))
    sessions.set(key, pending)
  }
  return pending
}

async function handle(message) {
  switch (message.op) {
    case 'open': {
      const session = await open(message.key, message.source, message.options)
      return { answer: { inputNames: session.inputNames, outputNames: session.outputNames }, transfer: [] }
    }
    case 'run': {
      let pending = sessions.get(message.key)
      if (!pending && message.file) pending = open(message.key, message.file, message.options)
      if (!pending) throw Object.assign(new Error('This model is not open in the inference thread.'), { name: 'ModelNotOpenError' })
      const session = await pending
      const started = performance.now()
      const feeds = { [message.inputName]: new ort.Tensor('float32', message.data, message.dims) }
      const results = await (message.fetches ? session.run(feeds, message.fetches) : session.run(feeds))
      const ms = performance.now() - started
      // The input is garbage now, but this thread's heap barely grows, so its collector could keep a
      // 12 MP detector input (tens of MB) for a long while: let go of its memory at once.
      message.data.buffer.transfer?.(0)
      const outputs = {}
      const transfer = []
      for (const [name, tensor] of Object.entries(results)) {
        const data = tensor.data
        outputs[name] = { type: tensor.type, data, dims: tensor.dims }
        // Handed over, not copied (a 4× enhancer tile's output is tens of MB). A view that does not
        // own its whole buffer is sent as a copy instead, so nothing else is taken along with it.
        if (ArrayBuffer.isView(data) && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && !transfer.includes(data.buffer)) {
          transfer.push(data.buffer)
        }
      }
      return { answer: { outputs, ms }, transfer }
    }
    case 'release': {
      const pending = sessions.get(message.key)
      sessions.delete(message.key)
      if (pending) await (await pending.catch(() => null))?.release()
      return { answer: {}, transfer: [] }
    }
    default:
      throw new Error(`unknown inference request ${message.op}`)
  }
}

serveRequests(handle)
