// Said plainly when the server lacks a model this tool needs: runs would fail until it is installed.
export function MissingModelsNotice({ models }: { models: readonly string[] }) {
  if (models.length === 0) return null
  return (
    <div role="status" className="mx-auto mt-6 max-w-6xl px-4 sm:px-6">
      <p className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900" data-testid="missing-models">
        This tool is not available on this server yet: the model{models.length > 1 ? 's' : ''} {models.join(', ')}{' '}
        {models.length > 1 ? 'are' : 'is'} not installed. The operator can install {models.length > 1 ? 'them' : 'it'} with{' '}
        <code className="font-mono">npm run models</code>.
      </p>
    </div>
  )
}
