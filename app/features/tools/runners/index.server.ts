// The one place that maps a tool to its runner. Nothing here loads onnxruntime: each runner imports
// its inference module inside run().
import type { ToolSlug } from '../../../catalog/tools'
import { backgroundRemoverRunner } from './background-remover.server'
import { faceBlurrerRunner } from './face-blurrer.server'
import { faceRestorerRunner } from './face-restorer.server'
import { imageEnhancerRunner } from './image-enhancer.server'
import { svgConverterRunner } from './svg-converter.server'
import type { ToolRunner } from '../../jobs/runner'

const RUNNERS: Record<ToolSlug, ToolRunner<unknown>> = {
  'background-remover': backgroundRemoverRunner,
  'face-restorer': faceRestorerRunner,
  'face-blurrer': faceBlurrerRunner,
  'svg-converter': svgConverterRunner,
  'image-enhancer': imageEnhancerRunner,
}

export function runnerFor(tool: ToolSlug): ToolRunner<unknown> {
  return RUNNERS[tool]
}
