import type * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * Parse options that word every issue without a message of ours in zod's English, as
 * classic zod did (it loads the English locale into zod's global config on import). zod/mini
 * loads no locale; passing the messages per parse, rather than calling `z.config(en())`, leaves
 * the application's own zod configuration alone.
 */
export const ENGLISH_MESSAGES: z.core.ParseContext<z.core.$ZodIssue> = { error: en().localeError };
