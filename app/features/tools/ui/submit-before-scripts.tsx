// A run tapped before the page's scripts have come is the form's own POST, as without JavaScript; but
// the page is still fetching its scripts and pictures, and on a slow link those downloads share the
// link with the upload (and hold the browser's few connections) until the next page arrives. These few
// lines stop them when the run form is sent natively: the next page fetches what it needs itself. Once
// the page has hydrated, the form's submit is taken over (ToolForm) and this does nothing (decision 192).
import { useNonce } from '~/utils/nonce'

/** The attribute that marks a tool's run form for the lines below. */
export const RUN_FORM_ATTRIBUTE = 'data-tool-run-form'

/** Plain ES5, no dependency, small enough to ride in the page's HTML. */
export function submitBeforeScriptsSource(): string {
  return (
    `(function(d){d.addEventListener('submit',function(e){` +
    `if(d.documentElement.dataset.hydrated==='true'||e.defaultPrevented)return;` +
    `var f=e.target;if(!f||!f.hasAttribute||!f.hasAttribute('${RUN_FORM_ATTRIBUTE}'))return;` +
    `if(window.stop)window.stop()})})(document)`
  )
}

export function SubmitBeforeScripts() {
  const nonce = useNonce()
  // The browser hides a nonce from the DOM once read: React would see it differ when it hydrates.
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: submitBeforeScriptsSource() }} />
}
