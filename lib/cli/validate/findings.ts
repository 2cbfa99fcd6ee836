/** One disagreement between a packaged template and the resource specification. */
export interface Finding {
  severity: "error" | "warning";
  /** The template file, relative to the packaged directory. */
  file: string;
  /** The resource's logical id ("" for the template's own sections). */
  resource: string;
  /** Its CloudFormation type ("" for the template's own sections). */
  type: string;
  /** Where, from the template's root: `Resources.PostTable.Properties.StreamSpecification.StreamEnabled`. */
  path: string;
  message: string;
}

/** Where a value sits and where its findings go. */
export interface Site {
  file: string;
  resource: string;
  type: string;
  report(finding: Finding): void;
}

export function report(site: Site, path: string, message: string, severity: Finding["severity"] = "error"): void {
  site.report({ severity, file: site.file, resource: site.resource, type: site.type, path, message });
}

/** One line per finding, as the command and the tests print them. */
export function formatFinding(f: Finding): string {
  return `${f.severity} ${f.file} ${f.path}${f.type ? ` (${f.type})` : ""}: ${f.message}`;
}
