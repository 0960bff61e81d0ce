/**
 * Loaded before the service or the admin CLI (`node --import ./src/platform/EnvFile.ts …` in package.json's
 * `start` and `admin`): the settings in `.env` in the working folder, when there is one, so the service and its CLI
 * read one configuration. A variable already in the environment wins over the file, even set empty (Node's rule for
 * `process.loadEnvFile`, as for `--env-file`).
 *
 * Not Node's `--env-file-if-exists=.env`: without a file, it prints ".env not found. Continuing without it." on
 * stderr at every start and every CLI command. Not in the entry points either: the tests and the benchmark start
 * `node src/main.ts` in this folder, and a developer's `.env` must not change what they measure.
 */
import { existsSync } from "node:fs"

if (existsSync(".env")) process.loadEnvFile(".env")
