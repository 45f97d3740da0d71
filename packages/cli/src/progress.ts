// A batch's progress: a bar on a terminal (cli-progress, on standard error), plain lines elsewhere (a
// log, CI), one each time a file ends. Standard output carries only the written paths.
import { SingleBar, Presets } from 'cli-progress'
import type { Batch } from '@facet-studio/sdk'

export interface BatchProgress {
  update(batch: Batch): void
  stop(): void
}

export function batchProgress(stream: NodeJS.WriteStream, quiet: boolean): BatchProgress {
  if (quiet) return { update() {}, stop() {} }
  if (stream.isTTY) {
    const bar = new SingleBar({ stream, format: '{bar} {value}/{total} files | {failed} failed', hideCursor: true, clearOnComplete: false }, Presets.shades_classic)
    let started = false
    return {
      update(batch) {
        const ended = batch.done + batch.failed
        if (!started) bar.start(batch.total, ended, { failed: batch.failed })
        started = true
        bar.update(ended, { failed: batch.failed })
      },
      stop: () => bar.stop(),
    }
  }
  let lastLine = ''
  return {
    update(batch) {
      const line = `${batch.done + batch.failed}/${batch.total} files done${batch.failed ? `, ${batch.failed} failed` : ''}`
      if (line !== lastLine) stream.write(`${line}\n`)
      lastLine = line
    },
    stop() {},
  }
}
