// The remover's output options on its screen: crop to the subject with a margin, a soft shadow, the
// mask alone, a background image and the file type. Plain form fields: they post the same with or
// without JavaScript, and the server composes the result (cutout-output.server.ts).
import { DEFAULT_OUTPUT_FORMAT } from "~/catalog/tools";
import { OUTPUT_FORMAT_LABELS } from "./tool-options";

/** The fields this part of the form sends, for the screen to tell whether the server must compose. */
export const CUTOUT_OUTPUT_FIELDS = [
  "crop",
  "crop_margin",
  "shadow",
  "channels",
  "format",
  "background_image",
] as const;

/** True when the form asks for more than a plain transparent cutout (which the browser colours itself). */
export function asksForComposition(form: FormData): boolean {
  const image = form.get("background_image");
  return (
    form.get("crop") === "true" ||
    form.get("shadow") === "true" ||
    form.get("channels") === "alpha" ||
    // The default (auto) of a transparent cutout is the PNG the browser colours itself.
    (typeof form.get("format") === "string" && !["png", "auto", ""].includes(form.get("format") as string)) ||
    (image instanceof Blob && image.size > 0)
  );
}

const FIELD =
  "rounded-lg border border-slate-300 px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600";
const CHECK =
  "h-4 w-4 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600";

/** `backgroundImage`: offer the second file (a batch has one file field per item, so it does not). */
export function CutoutOutputOptions({
  backgroundImage = true,
}: {
  backgroundImage?: boolean;
}) {
  // Closed by default (a native <details>, so it opens without JavaScript too): the screen's upload,
  // backdrop and run button stay in view at both screen sizes.
  return (
    <details className="group rounded-lg border border-slate-200 px-3 py-2">
      <summary className="cursor-pointer text-sm font-semibold text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600">
        More output options
      </summary>
      <fieldset className="mt-3 space-y-3">
        <legend className="sr-only">Output</legend>
        <div className="flex flex-wrap items-center gap-3">
          <label className="flex items-center gap-2 text-sm text-slate-800">
            <input type="checkbox" name="crop" value="true" className={CHECK} />
            Crop to the subject
          </label>
          <label className="flex items-center gap-2 text-sm text-slate-800">
            Margin
            <input
              name="crop_margin"
              type="text"
              inputMode="text"
              placeholder="0"
              aria-describedby="crop-margin-hint"
              className={`w-24 ${FIELD}`}
            />
          </label>
          <span id="crop-margin-hint" className="text-xs text-slate-600">
            pixels (20px) or % of the subject (10%)
          </span>
        </div>
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input type="checkbox" name="shadow" value="true" className={CHECK} />
          Soft shadow under the subject
        </label>
        <div className="flex flex-wrap gap-3">
          <label className="flex flex-col gap-1 text-sm text-slate-800">
            Result
            <select name="channels" defaultValue="rgba" className={FIELD}>
              <option value="rgba">Cutout</option>
              <option value="alpha">Mask only (grayscale)</option>
            </select>
          </label>
          <label className="flex flex-col gap-1 text-sm text-slate-800">
            File type
            <select name="format" defaultValue={DEFAULT_OUTPUT_FORMAT} className={FIELD}>
              <option value="auto">{OUTPUT_FORMAT_LABELS.auto}</option>
              <option value="png">{OUTPUT_FORMAT_LABELS.png}</option>
              <option value="webp">{OUTPUT_FORMAT_LABELS.webp}</option>
              <option value="jpg">JPEG (needs a background)</option>
            </select>
          </label>
        </div>
        {backgroundImage ? (
          <label className="flex flex-col gap-1 text-sm text-slate-800">
            Background image (optional, instead of a colour)
            <input
              type="file"
              name="background_image"
              accept="image/png,image/jpeg,image/webp"
              className="text-sm"
            />
          </label>
        ) : null}
      </fieldset>
    </details>
  );
}
