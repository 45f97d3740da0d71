// The story page's content (spec §2: timeline 2022, 2023, Today; mission and vision; three values).
import { STORAGE_SENTENCE } from '~/catalog/retention'
export const TIMELINE = [
  {
    year: '2022',
    title: 'A toolkit for one studio',
    text: 'Facet Studio began as a handful of scripts a small design studio used to cut out product shots and blur faces in event photos.',
  },
  {
    year: '2023',
    title: 'Open models, on a plain CPU',
    text: 'We rebuilt it around open models (U²-Net, YuNet, Real-ESRGAN) that run well without a GPU, so any team could host it on an ordinary server.',
  },
  {
    year: 'Today',
    title: 'Five tools, one studio',
    text: 'Background removal, face restoration, enhancement, face blurring and SVG export, metered by credits, with uploads deleted as soon as their run ends.',
  },
] as const

export const MISSION =
  'Give every creative team fast, dependable image tools that respect the people in their photos and the files they trust us with.'
export const VISION =
  'A studio you can run yourself: the same models, the same results, on your own hardware, with nothing kept that you did not ask us to keep.'

export const VALUES = [
  { title: 'Quality first', text: 'Results at the original resolution, lossless, with no watermark.' },
  { title: 'Privacy by default', text: STORAGE_SENTENCE },
  { title: 'Honest metering', text: 'A run costs credits only when it delivers. Failed runs are refunded, and every entry stays in your ledger.' },
] as const
