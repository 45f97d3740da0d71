// The chosen file, shown on its own until a run gives something to compare it with.
export function UploadPreview({ src, alt }: { src: string; alt: string }) {
  return (
    <figure className="m-0">
      <div className="overflow-hidden rounded-xl bg-slate-100">
        <img src={src} alt={alt} className="mx-auto max-h-[28rem] w-full object-contain" />
      </div>
      <figcaption className="mt-2 text-center text-xs text-slate-500">Original upload</figcaption>
    </figure>
  )
}
