import sys

from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
from pyspark.sql.functions import struct, to_json

args = getResolvedOptions(sys.argv, ["JOB_NAME", "input_path", "topic", "kafka_password"])
BOOTSTRAP = "b-1.payments.abc123.c2.kafka.eu-west-1.amazonaws.com:9096"
spark = GlueContext(SparkContext.getOrCreate()).spark_session

rows = spark.read.option("header", "true").csv(args["input_path"])
(rows.repartition(60)
     .select(to_json(struct("*")).alias("value"))
     .write.format("kafka")
     .option("kafka.bootstrap.servers", BOOTSTRAP)
     .option("kafka.security.protocol", "SASL_SSL")
     .option("kafka.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
             f'username="loader" password="{args["kafka_password"]}";')
     .option("kafka.batch.size", 131072)
     .option("kafka.linger.ms", "10")
     .option("kafka.compression.type", "zstd")
     .option("kafka.buffer.memory", str(256 * 1024 * 1024))
     .option("topic", args["topic"])
     .save())
