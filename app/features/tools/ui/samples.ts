// Images to try a tool with before uploading one's own (issue 13). A sample is fetched from public/
// and run exactly like an upload: a real, charged run. Public-domain sources: tests/fixtures/FIXTURES.md.
import type { ToolSlug } from '~/catalog/tools'

export interface SampleImage {
  src: string
  /** The file name the run sees. */
  name: string
  alt: string
}

export const SAMPLES: Record<ToolSlug, readonly SampleImage[]> = {
  'background-remover': [
    { src: '/samples/game-boy.jpg', name: 'game-boy.jpg', alt: 'A Game Boy on a white background' },
    { src: '/samples/router.jpg', name: 'router.jpg', alt: 'A wireless router' },
  ],
  'face-restorer': [
    { src: '/samples/astronaut-128px.jpg', name: 'astronaut-128px.jpg', alt: 'A small, compressed astronaut portrait' },
    { src: '/samples/astronaut-crop-64px.jpg', name: 'astronaut-crop-64px.jpg', alt: 'A tiny, blurred face crop' },
  ],
  'image-enhancer': [
    { src: '/samples/rocket-240px.jpg', name: 'rocket-240px.jpg', alt: 'A small photo of a rocket launch' },
    { src: '/samples/astronaut-128px.jpg', name: 'astronaut-128px.jpg', alt: 'A small, compressed astronaut portrait' },
  ],
  'face-blurrer': [{ src: '/samples/astronaut-class-2.jpg', name: 'astronaut-class.jpg', alt: 'A group photo of eight astronauts' }],
  'svg-converter': [{ src: '/samples/home-icon.svg', name: 'home-icon.svg', alt: 'A house icon' }],
}

/** The sample as a File, as if it had been chosen from disk. */
export async function fetchSample(sample: SampleImage): Promise<File> {
  const response = await fetch(sample.src)
  if (!response.ok) throw new Error(`The sample ${sample.name} could not be loaded (${response.status}).`)
  const blob = await response.blob()
  return new File([blob], sample.name, { type: blob.type })
}
