// The account files in /etc that kiln and shadow-utils lock and write, by name.

/** The account files in /etc, in the order shadow-utils locks and writes them. */
export const ACCOUNT_FILE_NAMES = ['passwd', 'shadow', 'group', 'gshadow', 'subuid', 'subgid'] as const;
export type AccountFileName = (typeof ACCOUNT_FILE_NAMES)[number];
