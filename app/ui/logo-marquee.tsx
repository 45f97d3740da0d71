// The partner marquee (spec §2) names what the studio really runs on: the open models and open-source
// projects every install uses (no invented customers, issue 21). The list is duplicated so the loop is
// seamless; the copy is hidden from assistive technology. Motion stops for prefers-reduced-motion.
const PARTNERS = ['U²-Net', 'YuNet', 'Real-ESRGAN', 'ONNX Runtime', 'sharp', 'resvg', 'PostgreSQL', 'Remix']

function Wordmark({ name, index }: { name: string; index: number }) {
  const shapes = [
    <circle key="c" cx="8" cy="8" r="7" />,
    <rect key="r" x="1" y="1" width="14" height="14" rx="3" />,
    <path key="p" d="M8 1 15 15H1Z" />,
  ]
  return (
    <span className="flex items-center gap-2 whitespace-nowrap text-lg font-semibold tracking-tight text-slate-600">
      <svg viewBox="0 0 16 16" className="h-5 w-5 fill-current" aria-hidden="true">
        {shapes[index % shapes.length]}
      </svg>
      {name}
    </span>
  )
}

export function LogoMarquee() {
  return (
    <div className="marquee relative overflow-hidden" data-testid="logo-marquee">
      <div className="marquee-track flex w-max gap-12">
        <ul className="flex shrink-0 gap-12" aria-label="Open models and open-source projects Facet Studio runs on">
          {PARTNERS.map((name, i) => (
            <li key={name}>
              <Wordmark name={name} index={i} />
            </li>
          ))}
        </ul>
        <ul className="flex shrink-0 gap-12" aria-hidden="true">
          {PARTNERS.map((name, i) => (
            <li key={name}>
              <Wordmark name={name} index={i} />
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}
