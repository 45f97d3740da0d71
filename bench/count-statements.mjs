// Counts the statements a process sends to its database, for bench/http-statements.ts: loaded into
// the server with `node --import ./bench/count-statements.mjs`, it appends one line per statement
// ("<epoch ms, to the microsecond>\t<first 160 characters of the SQL>") to STATEMENT_LOG, when it is sent. PGlite: every query and exec
// (BEGIN and COMMIT of a transaction included), of the app's Kysely dialect and of pg-boss's
// adapter alike. PostgreSQL: every pg Client query (the app's pool and pg-boss's).
import { appendFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'

const log = process.env.STATEMENT_LOG
if (!log) throw new Error('count-statements: set STATEMENT_LOG to the file to write')

function note(text) {
  const sql = typeof text === 'string' ? text : (text?.text ?? String(text))
  appendFileSync(log, `${(performance.timeOrigin + performance.now()).toFixed(3)}\t${sql.replace(/\s+/g, ' ').trim().slice(0, 160)}\n`)
}

const { query, exec, transaction } = PGlite.prototype
PGlite.prototype.query = function (sql, ...rest) {
  note(sql)
  return query.call(this, sql, ...rest)
}
PGlite.prototype.exec = function (sql, ...rest) {
  note(sql)
  return exec.call(this, sql, ...rest)
}
PGlite.prototype.transaction = function (callback) {
  return transaction.call(this, (tx) => {
    note('BEGIN')
    const counted = Object.create(tx, {
      query: { value: (sql, ...rest) => (note(sql), tx.query(sql, ...rest)) },
      exec: { value: (sql, ...rest) => (note(sql), tx.exec(sql, ...rest)) },
      rollback: { value: () => (note('ROLLBACK'), tx.rollback()) },
      closed: { get: () => tx.closed },
    })
    return Promise.resolve(callback(counted)).then((value) => {
      if (!tx.closed) note('COMMIT')
      return value
    })
  })
}

const clientQuery = pg.Client.prototype.query
pg.Client.prototype.query = function (config, ...rest) {
  note(config)
  return clientQuery.call(this, config, ...rest)
}
