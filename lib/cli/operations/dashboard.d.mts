/** The stage dashboard's body for `Fn::Sub`; without `ownMetrics`, only the panels on AWS's metrics. */
export declare function dashboardBody(namespace: string, functionPrefix: string, ownMetrics?: boolean): string;
