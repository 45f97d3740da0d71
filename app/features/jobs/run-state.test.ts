import { describe, expect, it } from 'vitest'
import { isUnderway, NO_FACE_NOT_CHARGED, runState, runStateText } from './run-state'

describe('runState', () => {
  it('tells a face run that found no face from a done one, though both jobs succeeded', () => {
    expect(runState({ status: 'succeeded', outcome: 'no_face' })).toBe('no_face')
    expect(runState({ status: 'succeeded', outcome: 'success' })).toBe('done')
    expect(runState({ status: 'failed', outcome: 'failed' })).toBe('failed')
    expect(runState({ status: 'queued', outcome: null })).toBe('waiting')
    expect(runState({ status: 'running', outcome: null })).toBe('running')
  })

  it('says each state in words, the no-face one as "No face found (not charged)"', () => {
    expect(runStateText('no_face', { progress: 100, error: null })).toBe('No face found (not charged)')
    expect(NO_FACE_NOT_CHARGED).toBe('No face found (not charged)')
    expect(runStateText('running', { progress: 40, error: null })).toBe('Running: 40%')
    expect(runStateText('failed', { progress: 12, error: 'Too big.' })).toBe('Failed: Too big.')
    expect(runStateText('failed', { progress: 0, error: null })).toBe('Failed: The run failed.')
    expect(runStateText('done', { progress: 100, error: null })).toBe('Done')
    expect(runStateText('waiting', { progress: 0, error: null })).toBe('Waiting')
  })

  it('counts waiting and running runs as underway, ended ones not', () => {
    expect(['waiting', 'running', 'done', 'no_face', 'failed'].filter((s) => isUnderway(s as never))).toEqual(['waiting', 'running'])
  })
})
