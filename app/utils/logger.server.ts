import pino from 'pino'
import { config } from '~/config.server'
import { singleton } from './singleton.server'

export const logger = singleton('logger', () =>
  pino({ level: config().NODE_ENV === 'test' ? 'silent' : config().LOG_LEVEL, base: undefined }),
)
