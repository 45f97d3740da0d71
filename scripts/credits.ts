// npm run credits -- grant <email> <amount> "<reason>"   adjust a user's balance (negative amounts
//                                                        take credits back, never below zero)
// npm run credits -- show <email>                        balance and latest transactions
// Exit codes: 0 done, 1 refused (unknown email, balance too low), 2 wrong usage.
// It runs the migrations first. On the embedded database (no DATABASE_URL) stop the server before
// running it: PGlite allows one process per data folder.
import { getDb } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
import {
  adjustUserCredits,
  formatReport,
  OperatorError,
  parseAmount,
  showUserCredits,
} from '../app/features/credits/operator.server'

const USAGE = `Usage:
  npm run credits -- grant <email> <amount> "<reason>"
  npm run credits -- show <email>`

class UsageError extends Error {}

async function run(args: string[]): Promise<string> {
  const [command, ...rest] = args
  if (command === 'grant') {
    if (rest.length !== 3) throw new UsageError('grant takes an email, an amount and a reason.')
    const [email, rawAmount, reason] = rest
    let amount: number
    try {
      amount = parseAmount(rawAmount)
    } catch (error) {
      throw error instanceof OperatorError ? new UsageError(error.message) : error
    }
    await migrateToLatest(getDb())
    const result = await adjustUserCredits(email, amount, reason)
    return `${amount > 0 ? 'Granted' : 'Took back'} ${Math.abs(amount)} credits ${amount > 0 ? 'to' : 'from'} ${result.email} (transaction #${result.transactionId}). Balance: ${result.balance}.`
  }
  if (command === 'show') {
    if (rest.length !== 1) throw new UsageError('show takes one email.')
    await migrateToLatest(getDb())
    return formatReport(await showUserCredits(rest[0]))
  }
  throw new UsageError(command ? `Unknown command "${command}".` : 'No command given.')
}

let exitCode = 0
try {
  console.log(await run(process.argv.slice(2)))
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`)
    exitCode = 2
  } else if (error instanceof OperatorError) {
    console.error(error.message)
    exitCode = 1
  } else {
    console.error(error)
    exitCode = 1
  }
} finally {
  await getDb().destroy()
}
process.exit(exitCode)
