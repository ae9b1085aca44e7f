/** An error the CLI reports as one line, without a stack: the user can act on its message. */
export class CliError extends Error {}
