// Who is looking at the page, as the layout needs it. Client-safe: types only.
export interface ViewerUser {
  id: string
  email: string
  first_name: string | null
  last_name: string | null
}

export interface ViewerCredits {
  source: 'user' | 'visitor'
  balance: number
}

export interface Viewer {
  user: ViewerUser | null
  /** null when the balance is unknown: the header then reads 'Credits'. */
  credits: ViewerCredits | null
}
