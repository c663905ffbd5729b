package quietload.trace;

import java.io.OutputStream;

/** A file on a Hadoop file system (s3://, s3a://, hdfs://) through the job's own Hadoop classes, by reflection:
 *  the jar has no Hadoop dependency, and the executors of a Glue or EMR job carry Hadoop. */
final class HadoopFiles {
    private HadoopFiles() {
    }

    static OutputStream create(String uri) {
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader() != null
                    ? Thread.currentThread().getContextClassLoader() : HadoopFiles.class.getClassLoader();
            Class<?> configuration = Class.forName("org.apache.hadoop.conf.Configuration", true, loader);
            Class<?> path = Class.forName("org.apache.hadoop.fs.Path", true, loader);
            Object conf = configuration.getConstructor().newInstance();
            Object target = path.getConstructor(String.class).newInstance(uri);
            Object fs = path.getMethod("getFileSystem", configuration).invoke(target, conf);
            return (OutputStream) fs.getClass().getMethod("create", path, boolean.class).invoke(fs, target, true);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no Hadoop file system for " + uri + " on this JVM's classpath: " + e, e);
        }
    }
}
