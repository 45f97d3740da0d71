// The arrow-into-tray drawn in every drop target (the tool workspace and the batch screen).
export function UploadIcon() {
  return (
    <svg viewBox="0 0 24 24" className="h-10 w-10 text-indigo-600" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
      <path d="M12 16V4m0 0-4 4m4-4 4 4M4 16v3a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-3" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  )
}
