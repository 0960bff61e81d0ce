import { Layer, Logger } from "effect"

export interface CapturedLog {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
  readonly cause: string | undefined
}

/** A logger that keeps structured entries in memory for assertions. */
export const makeLogCapture = () => {
  const entries: Array<CapturedLog> = []
  const logger = Logger.map(Logger.formatStructured, (entry) => {
    entries.push(entry)
  })
  return { entries, layer: Logger.layer([logger]) as Layer.Layer<never> }
}
