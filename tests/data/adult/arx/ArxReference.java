// Generates the ARX 3.9.2 reference output and metric values for infoloss's tests.
// Usage: java -cp classes:lib/*:driver ArxReference <adult dir> <out dir> <k> <suppression limit>
import java.io.*;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.aggregates.HierarchyBuilderIntervalBased;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.InformationLoss;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;

public class ArxReference {

    static final String[] QIS = {"age", "sex", "race", "marital-status", "education", "native-country", "workclass", "occupation"};

    static boolean INTERVALS = false;

    static Data load(String dir) throws IOException {
        Data data = Data.create(new File(dir, "adult.csv"), StandardCharsets.UTF_8, ';');
        for (String qi : QIS) {
            if (INTERVALS && qi.equals("age")) {
                // age as numeric intervals [0, 20[, [20, 40[, ... [100, 120[, joined in pairs, then *
                HierarchyBuilderIntervalBased<Long> builder = HierarchyBuilderIntervalBased.create(
                        DataType.INTEGER, new HierarchyBuilderIntervalBased.Range<Long>(0L, 0L, 0L),
                        new HierarchyBuilderIntervalBased.Range<Long>(120L, 120L, 120L));
                builder.addInterval(0L, 20L);
                builder.getLevel(0).addGroup(2);
                data.getDefinition().setDataType("age", DataType.INTEGER);
                data.getDefinition().setAttributeType("age", builder);
                continue;
            }
            Hierarchy h = Hierarchy.create(new File(dir, "adult_hierarchy_" + qi + ".csv"), StandardCharsets.UTF_8, ';');
            data.getDefinition().setAttributeType(qi, h);
        }
        data.getDefinition().setAttributeType("salary-class", AttributeType.INSENSITIVE_ATTRIBUTE);
        return data;
    }

    static ARXResult run(String dir, int k, double limit, Metric<?> metric, Map<String, Integer> fixed) throws IOException {
        Data data = load(dir);
        if (fixed != null) {
            for (Map.Entry<String, Integer> e : fixed.entrySet()) {
                data.getDefinition().setMinimumGeneralization(e.getKey(), e.getValue());
                data.getDefinition().setMaximumGeneralization(e.getKey(), e.getValue());
            }
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(k));
        config.setSuppressionLimit(limit);
        config.setQualityModel(metric);
        return new ARXAnonymizer().anonymize(data, config);
    }

    static String values(InformationLoss<?> loss) {
        StringBuilder sb = new StringBuilder();
        Object v = loss.getValue();
        if (v instanceof double[]) {
            sb.append(Arrays.toString((double[]) v));
        } else {
            sb.append(v);
        }
        try {
            Method m = loss.getClass().getMethod("getValues");
            m.setAccessible(true);
            sb.append(" per-attribute ").append(Arrays.toString((double[]) m.invoke(loss)));
        } catch (Exception e) {
            try {
                Class<?> c = loss.getClass();
                while (c != null) {
                    try {
                        Method m = c.getDeclaredMethod("getValues");
                        m.setAccessible(true);
                        sb.append(" per-attribute ").append(Arrays.toString((double[]) m.invoke(loss)));
                        break;
                    } catch (NoSuchMethodException x) { c = c.getSuperclass(); }
                }
            } catch (Exception x) { /* no per-attribute values */ }
        }
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        File out = new File(args[1]);
        int k = Integer.parseInt(args[2]);
        double limit = Double.parseDouble(args[3]);
        INTERVALS = args.length > 4 && args[4].equals("intervals");
        String tag = "k" + k + (INTERVALS ? "_intervals" : "");
        ARXResult result = run(dir, k, limit, Metric.createLossMetric(), null);
        ARXLattice.ARXNode optimum = result.getGlobalOptimum();
        Map<String, Integer> levels = new LinkedHashMap<>();
        for (String qi : QIS) levels.put(qi, optimum.getGeneralization(qi));
        DataHandle output = result.getOutput();
        int suppressed = 0;
        for (int row = 0; row < output.getNumRows(); row++) if (output.isOutlier(row)) suppressed++;
        output.save(new File(out, "adult_arx_" + tag + ".csv"), ';');
        try (PrintWriter w = new PrintWriter(new OutputStreamWriter(new FileOutputStream(new File(out, "arx_values_" + tag + ".txt")), StandardCharsets.UTF_8))) {
            w.println("k=" + k + (INTERVALS ? " age=intervals [0,20[..[100,120[ nested by 2" : "") + " suppression_limit=" + limit + " records=" + output.getNumRows() + " suppressed=" + suppressed);
            w.println("levels " + levels);
            w.println("attribute order in per-attribute values: " + Arrays.toString(QIS) + " (ARX's internal order may differ; see below)");
            Object[][] metrics = {
                {"loss_geometric", Metric.createLossMetric()},
                {"loss_arithmetic", Metric.createLossMetric(AggregateFunction.ARITHMETIC_MEAN)},
                {"loss_sum", Metric.createLossMetric(AggregateFunction.SUM)},
                {"discernibility", Metric.createDiscernabilityMetric(false)},
                {"discernibility_monotonic", Metric.createDiscernabilityMetric(true)},
                {"aecs", Metric.createAECSMetric()},
                {"height", Metric.createHeightMetric()},
                {"height_sum", Metric.createHeightMetric(AggregateFunction.SUM)},
                {"precision", Metric.createPrecisionMetric(false)},
                {"precision_monotonic", Metric.createPrecisionMetric(true)},
                {"precision_sum", Metric.createPrecisionMetric(false, AggregateFunction.SUM)},
                {"entropy", Metric.createEntropyMetric(false)},
                {"entropy_monotonic", Metric.createEntropyMetric(true)},
                {"kl_divergence", Metric.createKLDivergenceMetric()},
                {"ambiguity", Metric.createAmbiguityMetric()},
            };
            for (Object[] m : metrics) {
                ARXResult r = run(dir, k, limit, (Metric<?>) m[1], levels);
                ARXLattice.ARXNode node = r.getGlobalOptimum();
                Map<String, Integer> got = new LinkedHashMap<>();
                for (String qi : QIS) got.put(qi, node.getGeneralization(qi));
                if (!got.equals(levels)) throw new IllegalStateException("levels differ for " + m[0] + ": " + got);
                w.println(m[0] + " = " + values(node.getHighestScore()) + " | " + node.getHighestScore());
                w.println(m[0] + " header " + Arrays.toString(r.getOutput().getDefinition().getQuasiIdentifyingAttributes().toArray()));
            }
        }
        System.out.println("k=" + k + " limit=" + limit + " suppressed=" + suppressed + " levels=" + levels);
    }
}
