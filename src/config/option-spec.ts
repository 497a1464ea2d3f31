// What an oslo.config option is to kiln: its type and the default oslo.config gives it.

export type OptionType = 'str' | 'bool' | 'int' | 'float' | 'list';

export interface OptionSpec {
  type: OptionType;
  /** The default as oslo.config states it (undefined for options with no default, None in Python). */
  default: string | boolean | number | string[] | undefined;
}
