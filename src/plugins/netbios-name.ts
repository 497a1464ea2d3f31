// Turns a metadata host name into a Windows computer name by cloudbase-init's rules (NetBIOS: 15 characters).
export interface ComputerName {
  name: string;
  /** Why the name differs from what the metadata gave, for the log. */
  changes: string[];
}

export function toComputerName(hostname: string, netbiosCompatible: boolean): ComputerName {
  const changes: string[] = [];
  let name = hostname.split('.')[0] ?? hostname;
  if (name !== hostname) changes.push(`dropped the domain of '${hostname}'`);
  if (netbiosCompatible && name.length > 15) {
    changes.push(`truncated '${name}' to 15 characters (netbios_host_name_compatibility)`);
    name = name.slice(0, 15);
  }
  // A trailing hyphen is not allowed in a computer name; cloudbase-init turns it into a zero.
  if (name.endsWith('-')) {
    name = `${name.slice(0, -1)}0`;
    changes.push('replaced a trailing hyphen by 0');
  }
  return { name, changes };
}
