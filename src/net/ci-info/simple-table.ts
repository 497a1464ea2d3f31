// cloud-init's SimpleTable: the boxed table the ci-info lines are made of (+---+ rules, centred cells).
import { pyStrCenter } from './python-text';

export class SimpleTable {
  private readonly rows: string[][] = [];
  private readonly widths: number[];

  constructor(private readonly fields: string[]) {
    this.widths = fields.map((f) => f.length);
  }

  addRow(values: string[]): void {
    this.rows.push(values);
    for (const [i, v] of values.entries()) this.widths[i] = Math.max(this.widths[i] ?? 0, v.length);
  }

  private rule(): string {
    return `+${this.widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  }

  private row(values: string[]): string {
    return `|${values.map((v, i) => pyStrCenter(v, (this.widths[i] ?? 0) + 2)).join('|')}|`;
  }

  toString(): string {
    return [this.rule(), this.row(this.fields), this.rule(), ...this.rows.map((r) => this.row(r)), this.rule()].join(
      '\n',
    );
  }
}
