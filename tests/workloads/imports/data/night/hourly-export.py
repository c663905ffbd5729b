import sys

from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
from pyspark.sql import functions as F

args = getResolvedOptions(sys.argv, ["JOB_NAME", "input_path"])
glue = GlueContext(SparkContext.getOrCreate())
rows = glue.spark_session.read.option("header", "true").csv(args["input_path"])
(rows.withColumn("key", F.col("merchant_id").cast("string"))
     .select("key", F.to_json(F.struct("*")).alias("value"))
     .write.format("kafka")
     .option("kafka.bootstrap.servers", "b-1.payments.abc123.c2.kafka.eu-west-1.amazonaws.com:9096")
     .option("kafka.compression.type", "gzip")
     .option("kafka.linger.ms", "5")
     .option("topic", "merchant-exports")
     .save())
