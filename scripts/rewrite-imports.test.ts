import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { rewrite } from './rewrite-imports.mjs'

const repo = path.resolve(import.meta.dirname, '..')
const at = (file: string) => path.join(repo, file)

describe('rewrite-imports', () => {
  it('splits an import between the module that kept some exports and their new home', () => {
    const source = "import { createSession, getAuthentication, type Authentication } from '~/features/auth/session.server'\n"
    const { text } = rewrite(at('app/routes/x.ts'), source)
    expect(text).toBe(
      "import { createSession } from '~/features/auth/session.server'\n" +
        "import { getAuthentication, type Authentication } from '~/features/account/authentication.server'\n",
    )
  })

  it('keeps a relative specifier relative, and moves whole modules', () => {
    const { text } = rewrite(at('app/features/tools/jobs/a.server.ts'), "import { TOOLS } from '../catalog'\n")
    expect(text).toBe("import { TOOLS } from '../../../catalog/tools'\n")
  })

  it('renames a moved export where it is used', () => {
    const source = "import { DELIVERY_NOT_FOUND, requireWebhookOwner } from '~/features/webhooks/service.server'\nconst owner = await requireWebhookOwner(request)\n"
    const { text } = rewrite(at('app/routes/x.ts'), source)
    expect(text).toContain("import { DELIVERY_NOT_FOUND } from '~/features/webhooks/service.server'")
    expect(text).toContain("import { requireManagedAccount } from '~/features/account/guards.server'")
    expect(text).toContain('await requireManagedAccount(request)')
  })

  it('changes nothing the second time', () => {
    const once = rewrite(at('app/routes/x.ts'), "import { errorResponse, parseBody } from '~/features/auth/api.server'\n").text
    expect(rewrite(at('app/routes/x.ts'), once).text).toBe(once)
    expect(once).toBe("import { errorResponse } from '~/http/errors.server'\nimport { parseBody } from '~/http/body.server'\n")
  })
})
