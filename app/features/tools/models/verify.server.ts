// Integrity checks shared by the installer and the health report: the file's hash when one is
// pinned, and always that onnxruntime opens it with the signature the tool code expects.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import ort from 'onnxruntime-node'
import { knownHashes, type ModelEntry, type TensorSignature } from './manifest'

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

export interface ActualTensor {
  name: string
  type?: string
  shape?: ReadonlyArray<number | string>
}

/** A model file's tensors as onnxruntime reports them (its inputMetadata and outputMetadata). */
export interface FileSignature {
  inputs: readonly ActualTensor[]
  outputs: readonly ActualTensor[]
}

export function describeTensor(t: ActualTensor): string {
  return `${t.name} ${t.type ?? '?'}[${(t.shape ?? []).join(',')}]`
}

function compareTensors(kind: string, expected: TensorSignature[], actual: readonly ActualTensor[], exactNames: boolean): string[] {
  const problems: string[] = []
  // Positional models only promise their first tensor (extra side outputs, such as U²-Net's d1..d6, are fine).
  const wanted = exactNames ? expected : expected.slice(0, 1)
  if (actual.length < wanted.length) {
    problems.push(`expected ${expected.length} ${kind}(s), found ${actual.length}`)
    return problems
  }
  wanted.forEach((want, index) => {
    const got = exactNames ? actual.find((a) => a.name === want.name) : actual[index]
    if (!got) {
      problems.push(`${kind} "${want.name}" is missing (found ${actual.map((a) => a.name).join(', ')})`)
      return
    }
    if (got.type && got.type !== want.type) problems.push(`${kind} ${describeTensor(got)}: expected type ${want.type}`)
    const shape = got.shape ?? []
    const shapeOk =
      shape.length === want.shape.length &&
      want.shape.every((dim, i) => typeof dim === 'string' || typeof shape[i] === 'string' || shape[i] === dim || shape[i] === -1)
    if (!shapeOk) problems.push(`${kind} ${describeTensor(got)}: expected shape [${want.shape.join(',')}]`)
  })
  return problems
}

/** The tensors of an open session. */
export function sessionSignature(session: ort.InferenceSession): FileSignature {
  return { inputs: session.inputMetadata as unknown as ActualTensor[], outputs: session.outputMetadata as unknown as ActualTensor[] }
}

/** Returns what does not match; an empty list means the file's tensors fit the manifest entry. */
export function signatureProblems(entry: ModelEntry, signature: FileSignature): string[] {
  const exact = entry.names === 'exact'
  return [...compareTensors('input', entry.inputs, signature.inputs, exact), ...compareTensors('output', entry.outputs, signature.outputs, exact)]
}

export interface FileCheck {
  ok: boolean
  sha256: string
  hashPinned: boolean
  problems: string[]
}

/** Full check of one installed or downloaded file: hash (when the entry pins any) and signature. */
export async function checkModelFile(entry: ModelEntry, file: string, options: { allowUnpinned: boolean }): Promise<FileCheck> {
  const problems: string[] = []
  const sha256 = await sha256File(file)
  const hashes = knownHashes(entry)
  const hashPinned = hashes.includes(sha256)
  if (!hashPinned && hashes.length > 0 && !options.allowUnpinned) {
    problems.push(`sha256 ${sha256} matches no pinned hash (${hashes.join(' or ')})`)
  }
  try {
    const session = await ort.InferenceSession.create(file, { intraOpNumThreads: 1, graphOptimizationLevel: 'basic' })
    problems.push(...signatureProblems(entry, sessionSignature(session)))
    await session.release()
  } catch (error) {
    problems.push(`onnxruntime cannot load it: ${(error as Error).message.split('\n')[0]}`)
  }
  return { ok: problems.length === 0, sha256, hashPinned, problems }
}
