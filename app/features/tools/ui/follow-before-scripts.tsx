// A page opened on a running job whose scripts have not arrived yet (a run tapped before they loaded, on
// a slow link) follows the job with a few lines of its own instead of waiting for the bundle: it asks for
// the job's status every JOB_REFRESH_SECONDS and reloads once the job has ended, so the server draws the
// result as it does for the form without JavaScript. Once the page has hydrated, use-tool-run follows the
// job and this stops (decision 187). Without JavaScript, the workspace's <noscript> refresh does the same.
import { jobUrl, TERMINAL_JOB_STATUSES } from '~/features/jobs/view'
import { useNonce } from '~/utils/nonce'
import { JOB_REFRESH_SECONDS } from './page-result'

/** The follower's source: plain ES5, no dependency, small enough to ride in the page's HTML. */
export function followBeforeScriptsSource(jobId: string): string {
  const settings = JSON.stringify({ url: jobUrl(jobId), every: JOB_REFRESH_SECONDS * 1000, ended: TERMINAL_JOB_STATUSES })
  return (
    `(function(o){var d=document.documentElement;function h(){return d.dataset.hydrated==='true'}` +
    `function next(){if(!h())setTimeout(ask,o.every)}` +
    `function ask(){if(h())return;fetch(o.url,{headers:{accept:'application/json'},credentials:'same-origin'})` +
    `.then(function(r){return r.ok?r.json():null})` +
    `.then(function(j){if(h())return;if(j&&o.ended.indexOf(j.status)>=0)location.reload();else next()},next)}` +
    `next()})(${settings.replace(/</g, '\\u003c')})`
  )
}

export function FollowBeforeScripts({ jobId }: { jobId: string }) {
  const nonce = useNonce()
  // The browser hides a nonce from the DOM once read: React would see it differ when it hydrates.
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: followBeforeScriptsSource(jobId) }} />
}
