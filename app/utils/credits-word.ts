// The one place "credit" is pluralised (issue 21: no more "1 credits"). Client-safe; used by the
// header, the tool workspace, /credits, /pricing, the home page and the server's messages.

/** 'credit' for exactly one, else 'credits'. */
export function creditsNoun(n: number): string {
  return n === 1 ? 'credit' : 'credits'
}

/** A count of credits with its noun: '1 credit', '0 credits', '12,500 credits'. */
export function formatCredits(n: number): string {
  return `${n.toLocaleString('en-US')} ${creditsNoun(n)}`
}
