// npm run credits -- grant <email> <amount> "<reason>"   adjust a user's balance (negative amounts
//                                                        take credits back, never below zero)
// npm run credits -- show <email>                        balance and latest transactions
// npm run credits -- grant-team <team id or exact name> <amount> "<reason>"
//                                                        adjust a team's balance the same way
// npm run credits -- team-seats <team id or exact name> <n>   set a team's seat limit
// Exit codes: 0 done, 1 refused (unknown email, balance too low, database held, the studio on
// DATA_DIR runs on another database), 2 wrong usage.
// The command acts on the database its environment names (decision 163): with DATABASE_URL, that
// PostgreSQL database, directly, whatever socket DATA_DIR holds; without it, the embedded database in
// DATA_DIR, through the studio running there (its operator channel, app/features/operator/channel.server.ts,
// so the studio sees the change at once) or, with none running, opened here (migrations first).
// Every command's last line says which studio and database it changed or read.
import { config } from '../app/config.server'
import { getDb } from '../app/db/db.server'
import { DataFolderLockedError } from '../app/db/data-folder-lock.server'
import { formatReport, OperatorError, parseAmount, type AccountReport } from '../app/features/operator/credits.server'
import { executeOperatorCommand } from '../app/features/operator/channel.server'
import { operatorTarget } from '../app/features/operator/studio.server'
import { parseSeats } from '../app/features/operator/teams.server'
import { existingSingleton } from '../app/utils/singleton.server'

const USAGE = `Usage:
  npm run credits -- grant <email> <amount> "<reason>"
  npm run credits -- show <email>
  npm run credits -- grant-team <team id or exact name> <amount> "<reason>"
  npm run credits -- team-seats <team id or exact name> <n>`

class UsageError extends Error {}

/** A parse that refuses with OperatorError('invalid') is a usage mistake (exit code 2). */
function usage<T>(parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    throw error instanceof OperatorError ? new UsageError(error.message) : error
  }
}

const READ_ONLY_COMMANDS = new Set(['show'])

/** Where this command acts, said on its last line ("Changed in" or "Read from"). */
let actedOn = ''

async function operator(command: string, args: unknown): Promise<unknown> {
  const outcome = await executeOperatorCommand(operatorTarget(config()), command, args)
  actedOn = outcome.actedOn
  return outcome.result
}

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
    const result = (await operator('grant', { email, amount, reason })) as { email: string; transactionId: number; balance: number }
    return `${amount > 0 ? 'Granted' : 'Took back'} ${Math.abs(amount)} credits ${amount > 0 ? 'to' : 'from'} ${result.email} (transaction #${result.transactionId}). Balance: ${result.balance}.`
  }
  if (command === 'grant-team') {
    if (rest.length !== 3) throw new UsageError('grant-team takes a team (id or exact name), an amount and a reason.')
    const [team, rawAmount, reason] = rest
    const amount = usage(() => parseAmount(rawAmount))
    const result = (await operator('grant-team', { team, amount, reason })) as { team: { id: string; name: string }; transactionId: number; balance: number }
    return `${amount > 0 ? 'Granted' : 'Took back'} ${Math.abs(amount)} credits ${amount > 0 ? 'to' : 'from'} team ${result.team.name} (${result.team.id}, transaction #${result.transactionId}). Balance: ${result.balance}.`
  }
  if (command === 'team-seats') {
    if (rest.length !== 2) throw new UsageError('team-seats takes a team (id or exact name) and a number of seats.')
    const seats = usage(() => parseSeats(rest[1]))
    const result = (await operator('team-seats', { team: rest[0], seats })) as { team: { id: string; name: string }; seats: number; used: number }
    return `Team ${result.team.name} (${result.team.id}) now has ${result.seats} seats (${result.used} members).`
  }
  if (command === 'show') {
    if (rest.length !== 1) throw new UsageError('show takes one email.')
    return formatReport((await operator('show', { email: rest[0] })) as AccountReport)
  }
  throw new UsageError(command ? `Unknown command "${command}".` : 'No command given.')
}

let exitCode = 0
try {
  const args = process.argv.slice(2)
  const said = await run(args)
  console.log(`${said}\n${READ_ONLY_COMMANDS.has(args[0]) ? 'Read from' : 'Changed in'}: ${actedOn}.`)
} catch (error) {
  if (error instanceof UsageError || (error instanceof OperatorError && error.kind === 'invalid')) {
    console.error(`${error.message}\n\n${USAGE}`)
    exitCode = 2
  } else if (error instanceof OperatorError) {
    // Where it looked: a refusal from another studio than the one meant is then plain to see.
    console.error(error.lookedIn ? `${error.message}\nLooked in: ${error.lookedIn}.` : error.message)
    exitCode = 1
  } else if (error instanceof DataFolderLockedError) {
    console.error(error.message)
    exitCode = 1
  } else {
    console.error(error)
    exitCode = 1
  }
} finally {
  // Only close a database this process opened (the command may have gone to the running studio).
  if (existingSingleton('database')) await getDb().destroy()
}
process.exit(exitCode)
